// E2B's own SDK test of environment variables (the JS SDK's
// tests/sandbox/commands/envVars.test.ts: sandbox-wide and command-scoped
// variables, `sudo echo "$FOO"` not seeing a variable scoped to an earlier
// command, python3 seeing it, and the default E2B_SANDBOX / E2B_SANDBOX_ID
// variables and /run/e2b files), run with the SDK unmodified against
// whatever E2B_API_URL / E2B_SANDBOX_URL / E2B_API_KEY point at.
//
// Usage: node env-vars.mjs [sdk-module] [expected-version]
// Prints one line per test and closes with "N passed, N failed".

import assert from 'node:assert/strict';

import { loadSDK } from './lib/sdk.mjs';
import { Runner } from './lib/runner.mjs';

const { sdk, sdkVersion } = await loadSDK();
const { Sandbox } = sdk;
const r = new Runner(`e2b@${sdkVersion} envVars`);
// sudo and /run/e2b live in the sandbox's own root, which the emulator gives
// sandboxes where it runs as root on Linux (run.sh says so).
const privateRoot = process.env.CONFORMANCE_EXPECT_NAMESPACES !== '0';
if (!privateRoot) {
  console.log('# no private sandbox roots here: the sudo and /run/e2b checks are skipped');
}

const opened = [];
async function sandbox(opts) {
  const s = await Sandbox.create({ timeoutMs: 120_000, ...opts });
  opened.push(s);
  return s;
}

try {
  await r.step('envVars: sandbox global env vars', async () => {
    const s = await sandbox({ envs: { FOO: 'bar' } });
    const cmd = await s.commands.run('echo $FOO');
    assert.equal(cmd.exitCode, 0);
    assert.equal(cmd.stdout.trim(), 'bar');
  });

  await r.step('envVars: bash command scoped env vars', async () => {
    const s = await sandbox();
    const cmd = await s.commands.run('echo $FOO', { envs: { FOO: 'bar' } });
    assert.equal(cmd.exitCode, 0);
    assert.equal(cmd.stdout.trim(), 'bar');
    if (!privateRoot) return;
    // Not accessible to later commands, through sudo either.
    const cmd2 = await s.commands.run('sudo echo "$FOO"');
    assert.equal(cmd2.exitCode, 0);
    assert.equal(cmd2.stdout.trim(), '');
  });

  await r.step('envVars: python command scoped env vars', async () => {
    const s = await sandbox();
    const cmd = await s.commands.run('python3 -c "import os; print(os.environ[\'FOO\'])"', { envs: { FOO: 'bar' } });
    assert.equal(cmd.exitCode, 0);
    assert.equal(cmd.stdout.trim(), 'bar');
  });

  await r.step('envVars: default env vars', async () => {
    const s = await sandbox();
    const cmd = await s.commands.run('echo "$E2B_SANDBOX"');
    assert.equal(cmd.exitCode, 0);
    assert.equal(cmd.stdout.trim(), 'true');
    const cmd3 = await s.commands.run('echo "$E2B_SANDBOX_ID"');
    assert.equal(cmd3.exitCode, 0);
    assert.equal(cmd3.stdout.trim(), s.sandboxId.split('-')[0]);
    if (!privateRoot) return;
    const cmd2 = await s.commands.run('cat /run/e2b/.E2B_SANDBOX');
    assert.equal(cmd2.stdout.trim(), 'true');
    const cmd4 = await s.commands.run('cat /run/e2b/.E2B_SANDBOX_ID');
    assert.equal(cmd4.stdout.trim(), s.sandboxId.split('-')[0]);
  });
} finally {
  for (const s of opened) await s.kill().catch(() => {});
}

console.log(r.summary());
process.exit(r.failed === 0 ? 0 : 1);
