// Runs E2B's official JavaScript SDK, unmodified, through the team objects
// it manages besides sandboxes: volumes (with the volume-content API and a
// mount into sandboxes), secrets (filled only where a network rule puts
// them) and the egress they meet there: network rules whose
// headers carry secret and identity placeholders, and a SOCKS5 egress proxy. Same environment and output as scenario.mjs, plus
// E2B_VOLUME_API_URL (run.sh points it at the emulator).
//
// Usage: node team-objects.mjs [sdk-module] [expected-version]

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

import { loadSDK } from './lib/sdk.mjs';
import { Runner } from './lib/runner.mjs';
import { startSocks5 } from './lib/socks5.mjs';

const { sdk, sdkVersion } = await loadSDK();
const { Sandbox, Volume, Secret } = sdk;
const r = new Runner(`e2b@${sdkVersion} team objects`);
if (!Volume || !Secret) {
  console.log(`# e2b@${sdkVersion} has no Volume/Secret classes: its team-object steps are skipped`);
  console.log(r.summary());
  process.exit(0);
}
const run = randomBytes(4).toString('hex');
console.log(`# e2b@${sdkVersion} team objects against ${process.env.E2B_API_URL}, run ${run}`);
const watchdog = setTimeout(() => {
  console.log('FAIL watchdog: team objects still running after 300 s');
  r.failed++;
  console.log(r.summary());
  process.exit(1);
}, 300_000);
watchdog.unref();

// ---------------------------------------------------------------- volumes

const volName = `conf-${run}`;
let vol;
let mounted;
await r.step('volume: create, getInfo, list, connect', async () => {
  vol = await Volume.create(volName);
  assert.equal(vol.name, volName);
  assert.ok(vol.volumeId && vol.token, 'create returns an ID and a token');
  const info = await Volume.getInfo(vol.volumeId);
  assert.equal(info.name, volName);
  assert.ok((await Volume.list()).some((v) => v.volumeId === vol.volumeId), 'listed');
  const again = await Volume.connect(vol.volumeId);
  assert.equal(again.name, volName);
});

await r.step(
  'volume: content API writes, reads, lists, stats and removes',
  async () => {
    await vol.makeDir('/docs');
    const w = await vol.writeFile('/docs/readme.txt', 'from the volume API');
    assert.equal(w.size, 19);
    assert.equal(await vol.readFile('/docs/readme.txt'), 'from the volume API');
    const names = (await vol.list('/docs')).map((e) => e.name);
    assert.deepEqual(names, ['readme.txt']);
    assert.equal((await vol.getInfo('/docs')).type, 'directory');
    assert.equal(await vol.exists('/nope'), false);
    await vol.writeFile('/tmp.txt', 'x');
    await vol.remove('/tmp.txt');
    assert.equal(await vol.exists('/tmp.txt'), false);
  },
  { needs: ['volume: create, getInfo, list, connect'] },
);

await r.step(
  'volume: mounted into a sandbox, shared both ways',
  async () => {
    mounted = await Sandbox.create({ volumeMounts: { '/mnt/data': vol }, metadata: { run } });
    assert.equal(await mounted.files.read('/mnt/data/docs/readme.txt'), 'from the volume API');
    await mounted.commands.run('echo from-sandbox > out.txt', { cwd: '/mnt/data' });
    assert.equal(await vol.readFile('/out.txt'), 'from-sandbox\n');
    const info = await Sandbox.getInfo(mounted.sandboxId);
    assert.deepEqual(info.volumeMounts, [{ name: volName, path: '/mnt/data' }]);
  },
  { needs: ['volume: content API writes, reads, lists, stats and removes'] },
);

await r.step(
  'volume: destroy is refused while mounted, then succeeds',
  async () => {
    await assert.rejects(Volume.destroy(vol.volumeId), /mounted/);
    await mounted.kill();
    assert.equal(await Volume.destroy(vol.volumeId), true);
    assert.equal(await Volume.destroy(vol.volumeId), false, 'a second destroy finds nothing');
  },
  { needs: ['volume: mounted into a sandbox, shared both ways'] },
);

// ---------------------------------------------------------------- secrets

const secretName = `conf-token-${run}`;
await r.step('secret: create, getInfo, list, update, never a value', async () => {
  const s = await Secret.create(secretName, 'value-one', { metadata: { suite: 'conformance' } });
  assert.equal(s.name, secretName);
  assert.equal(s.version, 1);
  assert.ok(s.secretId.startsWith('sec_'));
  assert.equal((await Secret.getInfo(secretName)).secretId, s.secretId);
  const u = await Secret.update(s.secretId, 'value-two');
  assert.equal(u.version, 2);
  const pager = Secret.list({ limit: 1 });
  const all = [];
  while (pager.hasNext) all.push(...(await pager.nextItems()));
  assert.ok(all.some((x) => x.name === secretName), 'listed across pages');
  assert.ok(!JSON.stringify(all).includes('value-'), 'no value in the list');
  assert.equal(await Secret.exists(secretName), true);
  assert.equal(Secret.fill(secretName), `\${e2b.secrets.${secretName}}`);
});

await r.step(
  'secret: a Secret.fill marker a process writes into its own request header is sent as written (only rules are filled)',
  async () => {
    const seen = [];
    const upstream = createServer((req, res) => {
      seen.push(req.headers['x-token']);
      res.end('upstream-ok');
    });
    await new Promise((ok) => upstream.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${upstream.address().port}/`;
    const sbx = await Sandbox.create({ metadata: { run } });
    try {
      const res = await sbx.commands.run(`curl -sS -H 'X-Token: ${Secret.fill(secretName)}' ${url}`);
      assert.equal(res.stdout, 'upstream-ok');
      assert.deepEqual(seen, [Secret.fill(secretName)]);
    } finally {
      await sbx.kill();
      upstream.close();
    }
  },
  { needs: ['secret: create, getInfo, list, update, never a value'] },
);

await r.step(
  'network: a rule sets a secret and a workload token on its domain only; a SOCKS5 egress proxy carries the traffic',
  async () => {
    const seen = [];
    const upstream = createServer((req, res) => {
      seen.push({ host: req.headers.host.split(':')[0], auth: req.headers.authorization, id: req.headers['x-identity'] });
      res.end('upstream-ok');
    });
    await new Promise((ok) => upstream.listen(0, '127.0.0.1', ok));
    const port = upstream.address().port;
    const socks = await startSocks5('sandbox', 'socks-pass');
    const sbx = await Sandbox.create({
      metadata: { run },
      iam: { tokens: { ci: Secret.iamToken({ audience: 'conformance.test', tokenType: 'JWT-SVID' }) } },
      network: {
        allowOut: ['localhost', '127.0.0.1'],
        denyOut: ['0.0.0.0/0'],
        rules: {
          localhost: [
            {
              transform: ({ iam }) => ({
                headers: { Authorization: `Bearer ${Secret.fill(secretName)}`, 'X-Identity': iam.tokens.ci },
              }),
            },
          ],
        },
        egressProxy: { address: socks.address, username: 'sandbox', password: 'socks-pass' },
      },
    });
    try {
      const info = await sbx.getInfo();
      assert.deepEqual(Object.keys(info.network?.rules ?? {}), ['localhost'], 'getInfo returns the rules');
      assert.equal(info.network?.egressProxy?.address, socks.address, 'getInfo returns the proxy address');
      assert.equal(info.network?.egressProxy?.password, undefined, 'never the proxy password');
      for (const host of ['localhost', '127.0.0.1']) {
        const res = await sbx.commands.run(`curl -sS http://${host}:${port}/`);
        assert.equal(res.stdout, 'upstream-ok');
      }
      assert.equal(seen[0].auth, 'Bearer value-two', 'the rule fills the secret on its domain');
      assert.ok(seen[0].id && !seen[0].id.includes('${'), 'the rule fills the workload token');
      assert.equal(seen[1].auth, undefined, 'another domain gets nothing');
      assert.deepEqual(socks.seen.logins, ['sandbox:socks-pass', 'sandbox:socks-pass'], 'both went through the proxy');
    } finally {
      await sbx.kill();
      upstream.close();
      socks.server.close();
    }
  },
  { needs: ['secret: create, getInfo, list, update, never a value'] },
);

await r.step(
  'secret: destroy',
  async () => {
    assert.equal(await Secret.destroy(secretName), true);
    assert.equal(await Secret.exists(secretName), false);
  },
  { needs: ['secret: create, getInfo, list, update, never a value'] },
);

console.log(r.summary());
process.exit(r.failed === 0 ? 0 : 1);
