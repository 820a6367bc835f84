// Builds templates with E2B's official JavaScript SDK, unmodified, against
// whatever E2B_API_URL / E2B_SANDBOX_URL / E2B_API_KEY point at (the local
// emulator in CI), then starts sandboxes from them.
//
// Usage: node template-scenario.mjs [sdk-module] [expected-version]
// Prints one line per step and closes with "N passed, N failed".

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadSDK } from './lib/sdk.mjs';
import { Runner, rejects } from './lib/runner.mjs';

const { sdk, sdkVersion } = await loadSDK();
const { Sandbox, Template, BuildError, waitForFile } = sdk;
// Outside /home/user and /tmp, sandboxes and builds have a private root
// only where the emulator runs as root on Linux (run.sh says so).
const expectRootFS = process.env.CONFORMANCE_EXPECT_NAMESPACES === '1';

const r = new Runner(`template e2b@${sdkVersion}`);
const runId = randomBytes(4).toString('hex');
const started = Date.now();
const SANDBOX_TIMEOUT_MS = 300_000;
const BUILD_MS = 240_000;

// The file context: a folder with nested files and links to files in it,
// and a file that no step copies. (A link to a folder is left out: the SDK's
// archive then holds entries through the link, which builders may refuse.)
const ctxDir = mkdtempSync(path.join(tmpdir(), 'e2b-template-ctx-'));
mkdirSync(path.join(ctxDir, 'app', 'sub'), { recursive: true });
writeFileSync(path.join(ctxDir, 'app', 'hello.txt'), 'hello from the context\n');
writeFileSync(path.join(ctxDir, 'app', 'sub', 'deep.txt'), 'deep file\n');
symlinkSync('hello.txt', path.join(ctxDir, 'app', 'link-to-hello'));
symlinkSync('sub/deep.txt', path.join(ctxDir, 'app', 'link-to-deep'));
writeFileSync(path.join(ctxDir, 'unused.txt'), 'never copied\n');

const names = {
  main: `conf-tpl-${runId}`,
  image: `conf-img-${runId}`,
  fails: `conf-fail-${runId}`,
  missing: `conf-missing-${runId}`,
};
const sandboxes = [];

function mainTemplate() {
  return Template({ fileContextPath: ctxDir })
    .fromTemplate('base')
    .copy('app', '/home/user/app')
    .runCmd('echo "$USER" > /home/user/step-user.txt')
    .runCmd(
      [
        'echo "$USER" > /home/user/step-root.txt',
        expectRootFS ? 'mkdir -p /opt/conf && echo made-by-root > /opt/conf/marker' : 'true',
      ],
      { user: 'root' },
    )
    .setWorkdir('/home/user/app')
    .setUser('user')
    .setEnvs({ CONF_GREETING: 'hi from envs', CONF_MODE: 'conformance' })
    .setStartCmd('echo started > /tmp/started && sleep 600', waitForFile('/tmp/started'));
}

async function build(template, name, opts = {}) {
  const logs = [];
  const info = await Template.build(template, name, { ...opts, onBuildLogs: (l) => logs.push(l) });
  return { info, logs, text: logs.map((l) => l.message).join('\n') };
}

async function sandboxRun(template, command) {
  const sbx = await Sandbox.create(template, { timeoutMs: SANDBOX_TIMEOUT_MS, metadata: { run: runId } });
  sandboxes.push(sbx.sandboxId);
  return { sbx, out: (await sbx.commands.run(command)).stdout };
}

let first;
await r.step(
  'template: Template.build fromTemplate(base) with copy, runCmd as user and root, setWorkdir, setUser, setEnvs, setStartCmd',
  async () => {
    first = await build(mainTemplate(), names.main, { cpuCount: 2, memoryMB: 1024 });
    assert.ok(first.info.templateId && first.info.buildId, `build info ${JSON.stringify(first.info)}`);
    assert.equal(first.info.name, names.main);
    assert.ok(first.logs.length > 3, `only ${first.logs.length} log entries`);
    assert.match(first.text, /Uploaded 'app'/, 'the app folder was uploaded');
  },
  { timeoutMs: BUILD_MS },
);

await r.step(
  'template: a sandbox from it sees the files, links, env, workdir, users and the running start command',
  async () => {
    const { out } = await sandboxRun(names.main, [
      'pwd',
      'cat hello.txt sub/deep.txt',
      'readlink link-to-hello link-to-deep',
      'cat link-to-deep',
      'echo "greeting=$CONF_GREETING mode=$CONF_MODE"',
      'echo "step-user=$(cat /home/user/step-user.txt) step-root=$(cat /home/user/step-root.txt)"',
      'cat /tmp/started',
      'pgrep -f "sleep 600" > /dev/null && echo start-command-running',
      expectRootFS ? 'cat /opt/conf/marker' : 'echo made-by-root',
      'test -e /home/user/unused.txt || echo no-unused',
    ].join('; '));
    for (const want of [
      '/home/user/app',
      'hello from the context',
      'deep file',
      'hello.txt\nsub/deep.txt',
      'greeting=hi from envs mode=conformance',
      'step-user=user step-root=root',
      'started',
      'start-command-running',
      'made-by-root',
      'no-unused',
    ]) {
      assert.ok(out.includes(want), `sandbox output lacks ${JSON.stringify(want)}:\n${out}`);
    }
  },
  { needs: ['template: Template.build fromTemplate(base) with copy, runCmd as user and root, setWorkdir, setUser, setEnvs, setStartCmd'] },
);

await r.step(
  'template: an unchanged rebuild is cached and uploads nothing',
  async () => {
    const again = await build(mainTemplate(), names.main);
    assert.equal(again.info.templateId, first.info.templateId, 'same template');
    assert.notEqual(again.info.buildId, first.info.buildId, 'a new build');
    assert.match(again.text, /Skipping upload of 'app', already cached/);
    assert.match(again.text, /CACHED/, `no cached step in:\n${again.text}`);
  },
  { needs: ['template: Template.build fromTemplate(base) with copy, runCmd as user and root, setWorkdir, setUser, setEnvs, setStartCmd'], timeoutMs: BUILD_MS },
);

await r.step(
  'template: skipCache builds every step again',
  async () => {
    const forced = await build(mainTemplate(), names.main, { skipCache: true });
    assert.doesNotMatch(forced.text, /CACHED/, `a step was cached despite skipCache:\n${forced.text}`);
    const partly = await build(mainTemplate().skipCache().runCmd('echo after-skip > /home/user/after.txt'), names.main);
    assert.match(partly.text, /CACHED/, 'steps before skipCache() stay cached');
  },
  { needs: ['template: an unchanged rebuild is cached and uploads nothing'], timeoutMs: BUILD_MS },
);

await r.step(
  'template: fromImage builds',
  async () => {
    const img = await build(Template().fromImage('ubuntu:22.04').runCmd('echo from-image > /home/user/img.txt'), names.image);
    assert.ok(img.info.buildId);
    const { out } = await sandboxRun(names.image, 'cat /home/user/img.txt');
    assert.match(out, /from-image/);
  },
  { timeoutMs: BUILD_MS },
);

await r.step(
  'template: fromImage of an image nobody has fails the build with BuildError naming it',
  async () => {
    const image = `e2b-conformance-missing/none:${runId}`;
    const err = await rejects(Template.build(Template().fromImage(image).runCmd('echo never'), names.missing), 'a build from a missing image');
    assert.ok(err instanceof BuildError, `want BuildError, got ${err?.name}: ${err?.message}`);
    assert.ok(err.message.includes(image), `the error does not name the image: ${err.message}`);
  },
  { timeoutMs: BUILD_MS },
);

await r.step(
  'template: a failing step fails the build with BuildError naming the step',
  async () => {
    const source = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
    const failingLine = source.findIndex((l) => l.includes('.runCmd(' + "'echo broken")) + 1;
    const bad = Template().fromTemplate('base').runCmd('echo fine').runCmd('echo broken >&2; exit 9');
    const err = await rejects(Template.build(bad, names.fails), 'a build whose step exits 9');
    assert.ok(err instanceof BuildError, `expected BuildError, got ${err?.name}: ${err?.message}`);
    assert.match(err.message, /9/, `the reason names the exit code: ${err.message}`);
    // The SDK points the error's stack at the call that added the failing step.
    assert.ok(err.stack.includes(`template-scenario.mjs:${failingLine}:`), `stack does not point at line ${failingLine}:\n${err.stack}`);
  },
  { timeoutMs: BUILD_MS },
);

await r.step(
  'template: tags assign, get and remove; a sandbox starts from name:tag; Template.exists',
  async () => {
    const assigned = await Template.assignTags(`${names.main}:default`, ['prod', 'stable']);
    assert.deepEqual([...assigned.tags].sort(), ['prod', 'stable']);
    let tags = await Template.getTags(names.main);
    const prod = tags.find((t) => t.tag === 'prod');
    assert.ok(prod && prod.buildId === assigned.buildId && prod.createdAt instanceof Date, `tags ${JSON.stringify(tags)}`);
    await Template.removeTags(names.main, 'stable');
    tags = await Template.getTags(names.main);
    assert.ok(!tags.some((t) => t.tag === 'stable'), `stable still there: ${JSON.stringify(tags)}`);
    const { out } = await sandboxRun(`${names.main}:prod`, 'cat /home/user/app/hello.txt');
    assert.match(out, /hello from the context/);
    assert.equal(await Template.exists(names.main), true);
    assert.equal(await Template.exists(`never-built-${runId}`), false);
  },
  { needs: ['template: Template.build fromTemplate(base) with copy, runCmd as user and root, setWorkdir, setUser, setEnvs, setStartCmd'] },
);

await r.step('template cleanup: kill the sandboxes, delete the templates', async () => {
  for (const id of sandboxes) await Sandbox.kill(id);
  for (const name of Object.values(names)) {
    const res = await fetch(`${process.env.E2B_API_URL}/templates/${encodeURIComponent(name)}`, {
      method: 'DELETE',
      headers: { 'X-API-Key': process.env.E2B_API_KEY },
    });
    assert.ok([204, 404].includes(res.status), `delete ${name}: ${res.status} ${await res.text()}`);
  }
  rmSync(ctxDir, { recursive: true, force: true });
});

const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(`# templates with e2b@${sdkVersion}: ${r.summary()} in ${seconds}s`);
console.log(r.summary());
process.exit(r.failed === 0 ? 0 : 1);
