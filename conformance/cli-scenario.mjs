// Runs E2B's own command-line tool (@e2b/cli, pinned in package-lock.json),
// unmodified, as a user would against whatever E2B_API_URL / E2B_SANDBOX_URL
// / E2B_API_KEY point at (the local emulator in CI): template create from a
// Dockerfile, sandbox create, exec (stdin, exit codes), info, metrics, list
// filters, logs, pause/resume, snapshots, kill, template publish and delete.
// The CLI runs with a HOME of its own, so no ~/.e2b/config.json is read.
//
// Usage: node cli-scenario.mjs [expected-cli-version]
// Prints one line per step and closes with "N passed, N failed".

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Runner, poll } from './lib/runner.mjs';

const expectedVersion = process.argv[2] || '';
const require = createRequire(import.meta.url);
const cliPackage = require('@e2b/cli/package.json');
const cliMain = require.resolve('@e2b/cli/dist/index.js');
if (expectedVersion && cliPackage.version !== expectedVersion) {
  console.log(`@e2b/cli is ${cliPackage.version}, expected ${expectedVersion}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
for (const name of ['E2B_API_URL', 'E2B_SANDBOX_URL', 'E2B_API_KEY']) {
  if (!process.env[name]) {
    console.log(`${name} is not set: point the CLI at the emulator (see run.sh)`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}
const { Sandbox } = await import('e2b');

const r = new Runner(`@e2b/cli ${cliPackage.version}`);
const run = randomBytes(4).toString('hex');
const home = mkdtempSync(path.join(tmpdir(), 'e2b-cli-home-'));
const ctx = mkdtempSync(path.join(tmpdir(), 'e2b-cli-ctx-'));
const tplName = `conf-cli-${run}`;
const snapName = `conf-cli-snap-${run}`;
const made = { sandboxes: new Set(), snapshots: new Set() };
console.log(`# @e2b/cli ${cliPackage.version} against ${process.env.E2B_API_URL}, run ${run}`);
const watchdog = setTimeout(() => {
  console.log('FAIL watchdog: the CLI scenario still running after 600 s');
  r.failed++;
  console.log(r.summary());
  process.exit(1);
}, 600_000);
watchdog.unref();

// cli runs the CLI with args; input (a string) is piped to its stdin, else
// stdin is /dev/null (the CLI treats a pipe as input for exec).
function cli(args, { input, timeoutMs = 240_000 } = {}) {
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    E2B_API_URL: process.env.E2B_API_URL,
    E2B_SANDBOX_URL: process.env.E2B_SANDBOX_URL,
    E2B_API_KEY: process.env.E2B_API_KEY,
    FORCE_COLOR: '0',
    NO_COLOR: '1',
    CI: '1',
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliMain, ...args], {
      env,
      cwd: ctx,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`e2b ${args.join(' ')}: still running after ${timeoutMs / 1000} s\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, text: `exit ${code}\nstdout:\n${stdout}\nstderr:\n${stderr}` });
    });
    if (input !== undefined) child.stdin.end(input);
  });
}

// ok runs the CLI and insists on exit 0.
async function ok(args, opts) {
  const res = await cli(args, opts);
  assert.equal(res.code, 0, `e2b ${args.join(' ')} failed:\n${res.text}`);
  return res;
}

// jsonOf parses the JSON document a --format json command printed.
function jsonOf(res) {
  const start = res.stdout.search(/[[{]/);
  assert.ok(start >= 0, `no JSON in:\n${res.text}`);
  return JSON.parse(res.stdout.slice(start));
}

// A Dockerfile context: FROM E2B's base image, a copied file, a RUN step.
writeFileSync(path.join(ctx, 'hello.txt'), 'hello from the cli context\n');
writeFileSync(
  path.join(ctx, 'e2b.Dockerfile'),
  ['FROM e2bdev/base', 'COPY hello.txt /home/user/hello.txt', 'RUN echo built-by-cli > /home/user/built.txt', ''].join('\n'),
);

let sbx; // the sandbox the CLI created from the template
try {
  await r.step('cli: template create builds the Dockerfile with a start and ready command', async () => {
    const res = await ok([
      'template', 'create', tplName, '--cpu-count', '1', '--memory-mb', '512',
      '--cmd', 'echo started > /tmp/started && sleep 600', '--ready-cmd', 'test -f /tmp/started',
    ]);
    assert.match(res.stdout, /finished/, res.text);
    const list = jsonOf(await ok(['template', 'list', '--format', 'json']));
    const tpl = list.find((t) => (t.aliases || []).includes(tplName) || (t.names || []).some((n) => n.endsWith(`/${tplName}`)));
    assert.ok(tpl, `template list lacks ${tplName}:\n${JSON.stringify(list, null, 2)}`);
    assert.equal(tpl.public, false);
  }, { timeoutMs: 300_000 });

  await r.step('cli: sandbox create -d starts a sandbox from the template', async () => {
    const res = await ok(['sandbox', 'create', tplName, '--detach', '--timeout', '300']);
    sbx = res.stdout.trim().split('\n').pop().trim();
    assert.match(sbx, /^[a-z0-9]+$/, res.text);
    made.sandboxes.add(sbx);
  }, { needs: ['cli: template create builds the Dockerfile with a start and ready command'] });

  const needSbx = { needs: ['cli: sandbox create -d starts a sandbox from the template'] };
  await r.step('cli: exec runs commands and passes their exit codes', async () => {
    const files = await ok(['sandbox', 'exec', sbx, 'cat', '/home/user/hello.txt', '/home/user/built.txt', '/tmp/started']);
    assert.equal(files.stdout, 'hello from the cli context\nbuilt-by-cli\nstarted\n');
    const failing = await cli(['sandbox', 'exec', sbx, '--', 'sh', '-c', 'echo to-stderr >&2; exit 7']);
    assert.equal(failing.code, 7, failing.text);
    assert.match(failing.stderr, /to-stderr/);
    const env = await ok(['sandbox', 'exec', '-e', 'CONF_CLI=yes', '-c', '/tmp', sbx, '--', 'sh', '-c', 'echo "$CONF_CLI $(pwd)"']);
    assert.equal(env.stdout, 'yes /tmp\n');
  }, needSbx);

  await r.step('cli: exec pipes stdin to the command and closes it', async () => {
    const res = await ok(['sandbox', 'exec', sbx, '--', 'sh', '-c', 'wc -l; cat /dev/null'], { input: 'one\ntwo\nthree\n' });
    assert.equal(res.stdout.trim(), '3');
    const echo = await ok(['sandbox', 'exec', sbx, 'cat'], { input: 'through stdin\n' });
    assert.equal(echo.stdout, 'through stdin\n');
  }, needSbx);

  await r.step('cli: sandbox info shows the sandbox', async () => {
    const info = jsonOf(await ok(['sandbox', 'info', sbx, '--format', 'json']));
    assert.equal(info.sandboxId, sbx);
    assert.equal(info.state, 'running');
    assert.equal(info.name, tplName);
    const missing = await cli(['sandbox', 'info', `i${run}missing`]);
    assert.equal(missing.code, 1, missing.text);
    assert.match(missing.stderr, /wasn't found/);
  }, needSbx);

  await r.step('cli: sandbox metrics prints samples', async () => {
    const samples = await poll(async () => {
      const res = await ok(['sandbox', 'metrics', sbx, '--format', 'json']);
      return res.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    }, { timeoutMs: 30_000, intervalMs: 1000 });
    assert.ok(samples.length > 0, 'no metrics sample within 30 s');
    assert.ok(samples[0].cpuCount >= 1 && samples[0].memTotal > 0, JSON.stringify(samples[0]));
  }, needSbx);

  await r.step('cli: sandbox logs parses every line (level, logger) and filters', async () => {
    const all = await ok(['sandbox', 'logs', sbx, '--format', 'json']);
    const lines = all.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    assert.ok(lines.length >= 3, all.text);
    for (const l of lines) {
      assert.ok(l.timestamp && l.level && typeof l.logger === 'string', JSON.stringify(l));
    }
    const byLogger = await ok(['sandbox', 'logs', sbx, '--format', 'json', '--loggers', 'process']);
    const processLines = byLogger.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    assert.ok(processLines.length > 0 && processLines.every((l) => l.logger === 'process'), byLogger.text);
    const errorsOnly = await ok(['sandbox', 'logs', sbx, '--format', 'json', '--level', 'ERROR']);
    assert.equal(errorsOnly.stdout.split('\n').filter((l) => l.startsWith('{')).length, 0, errorsOnly.text);
    const pretty = await ok(['sandbox', 'logs', sbx]);
    assert.match(pretty.stdout, /Logs for sandbox/);
  }, needSbx);

  // Two more sandboxes, with metadata, for the list and kill filters.
  const tagged = {};
  await r.step('cli: sandbox list filters by metadata, state and template', async () => {
    for (const role of ['a', 'b']) {
      const s = await Sandbox.create({ metadata: { run, role }, timeoutMs: 300_000 });
      made.sandboxes.add(s.sandboxId);
      tagged[role] = s.sandboxId;
    }
    const ids = async (...args) => jsonOf(await ok(['sandbox', 'list', '--format', 'json', ...args])).map((s) => s.sandboxId).sort();
    assert.deepEqual(await ids('--metadata', `run=${run}`), [tagged.a, tagged.b].sort());
    assert.deepEqual(await ids('--metadata', `run=${run},role=b`), [tagged.b]);
    assert.deepEqual(await ids('--metadata', `run=${run}`, '--state', 'paused'), []);
    assert.deepEqual(await ids('--template', tplName), [sbx]);
  }, needSbx);

  await r.step('cli: sandbox pause and resume keep its files', async () => {
    const paused = await ok(['sandbox', 'pause', tagged.a]);
    assert.match(paused.stdout, /has been paused/);
    const list = jsonOf(await ok(['sandbox', 'list', '--format', 'json', '--state', 'paused', '--metadata', `run=${run}`]));
    assert.deepEqual(list.map((s) => s.sandboxId), [tagged.a]);
    const again = await ok(['sandbox', 'pause', tagged.a]);
    assert.match(again.stdout, /already paused/);
    const resumed = await ok(['sandbox', 'resume', tagged.a]);
    assert.match(resumed.stdout, /has been resumed/);
    assert.equal((await ok(['sandbox', 'exec', tagged.a, 'echo', 'back'])).stdout, 'back\n');
  }, { needs: ['cli: sandbox list filters by metadata, state and template'] });

  await r.step('cli: sandbox snapshot create, list, start from it, delete', async () => {
    await ok(['sandbox', 'exec', sbx, '--', 'sh', '-c', 'echo in-snapshot > /home/user/snap.txt']);
    const created = await ok(['sandbox', 'snapshot', 'create', sbx, '--name', snapName]);
    const id = created.stdout.match(/Created snapshot (\S+)/)?.[1];
    assert.ok(id, created.text);
    made.snapshots.add(id);
    const listed = jsonOf(await ok(['sandbox', 'snapshot', 'list', sbx, '--format', 'json']));
    assert.ok(listed.some((s) => s.snapshotId === id), JSON.stringify(listed));
    const byName = jsonOf(await ok(['sandbox', 'snapshot', 'list', '--name', snapName, '--format', 'json']));
    assert.deepEqual(byName.map((s) => s.snapshotId), [id]);
    const from = (await ok(['sandbox', 'create', id, '--detach', '--timeout', '60'])).stdout.trim().split('\n').pop().trim();
    made.sandboxes.add(from);
    assert.equal((await ok(['sandbox', 'exec', from, 'cat', '/home/user/snap.txt'])).stdout, 'in-snapshot\n');
    await ok(['sandbox', 'kill', from]);
    const deleted = await ok(['sandbox', 'snapshot', 'delete', id]);
    assert.match(deleted.stdout, /has been deleted/);
    made.snapshots.delete(id);
  }, needSbx);

  await r.step('cli: sandbox kill, by ID and with --all and a metadata filter', async () => {
    const killed = await ok(['sandbox', 'kill', sbx]);
    assert.match(killed.stdout, /has been killed/);
    const gone = await cli(['sandbox', 'info', sbx]);
    assert.equal(gone.code, 1, gone.text);
    const all = await ok(['sandbox', 'kill', '--all', '--metadata', `run=${run}`]);
    assert.match(all.stdout, /Killed 2 running sandboxes/);
    assert.deepEqual(jsonOf(await ok(['sandbox', 'list', '--format', 'json', '--metadata', `run=${run}`])), []);
  }, { needs: ['cli: sandbox list filters by metadata, state and template'] });

  await r.step('cli: template publish and delete', async () => {
    const published = await ok(['template', 'publish', tplName, '--yes']);
    assert.match(published.stdout, /Publishing sandbox template/);
    let list = jsonOf(await ok(['template', 'list', '--format', 'json']));
    const tpl = list.find((t) => (t.aliases || []).includes(tplName) || (t.names || []).some((n) => n.endsWith(`/${tplName}`)));
    assert.equal(tpl?.public, true, JSON.stringify(tpl));
    await ok(['template', 'delete', tplName, '--yes']);
    list = jsonOf(await ok(['template', 'list', '--format', 'json']));
    assert.ok(!list.some((t) => t.templateID === tpl.templateID), 'the template is still listed after delete');
  }, { needs: ['cli: template create builds the Dockerfile with a start and ready command'] });
} finally {
  // Whatever a failed step left behind.
  for (const id of made.sandboxes) await Sandbox.kill(id).catch(() => {});
  for (const id of made.snapshots) await Sandbox.deleteSnapshot(id).catch(() => {});
  for (const name of [tplName, snapName]) {
    await fetch(`${process.env.E2B_API_URL}/templates/${encodeURIComponent(name)}`, {
      method: 'DELETE',
      headers: { 'X-API-Key': process.env.E2B_API_KEY },
    }).catch(() => {});
  }
  rmSync(home, { recursive: true, force: true });
  rmSync(ctx, { recursive: true, force: true });
}

console.log(r.summary());
process.exit(r.failed === 0 ? 0 : 1);
