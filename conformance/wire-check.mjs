// Checks, through the emulator's request counters, that the scenario really
// went over the routes the given SDK version uses (2.51.0: /v2 create and
// connect; 2.50.0: the legacy paths), that the SDK never sent the API key to
// envd, and that no sandbox was left alive. Resets the counters afterwards so
// the next SDK version starts from zero.
//
// Usage: node wire-check.mjs <sdk-version>   (needs E2B_API_URL and E2B_EMULATOR_ADMIN_TOKEN of the emulator)

import assert from 'node:assert/strict';

import { Runner } from './lib/runner.mjs';

const version = process.argv[2];
const admin = `${process.env.E2B_API_URL}/_emulator/counters`;
const adminAuth = { Authorization: `Bearer ${process.env.E2B_EMULATOR_ADMIN_TOKEN}` };

const routesBoth = [
  'GET /sandboxes/{id}',
  'DELETE /sandboxes/{id}',
  'GET /v2/sandboxes',
  'POST /sandboxes/{id}/timeout',
  'POST /sandboxes/{id}/pause',
  'POST /sandboxes/{id}/snapshots',
  'GET /snapshots',
  'DELETE /templates/{id}',
  'GET /sandboxes/{id}/metrics',
  'envd GET /health',
  'envd GET /files',
  'envd POST /files',
  'envd /process.Process/Start',
  'envd /process.Process/Connect',
  'envd /process.Process/List',
  'envd /process.Process/SendInput',
  'envd /process.Process/CloseStdin',
  'envd /process.Process/SendSignal',
  'envd /process.Process/Update',
  'envd /filesystem.Filesystem/Stat',
  'envd /filesystem.Filesystem/MakeDir',
  'envd /filesystem.Filesystem/ListDir',
  'envd /filesystem.Filesystem/Move',
  'envd /filesystem.Filesystem/Remove',
  'envd /filesystem.Filesystem/WatchDir',
];
const v2 = ['POST /v2/sandboxes', 'POST /v2/sandboxes/{id}/connect'];
const legacy = ['POST /sandboxes', 'POST /sandboxes/{id}/connect'];
const [used, unused] = version === '2.50.0' ? [legacy, v2] : [v2, legacy];

const r = new Runner(`wire e2b@${version}`);
await r.step(`wire: e2b@${version} used its create/connect paths, every scenario route, no API key to envd`, async () => {
  const res = await fetch(admin, { headers: adminAuth });
  assert.equal(res.status, 200, `GET ${admin}`);
  const counters = await res.json();
  const count = (route) => counters.requests?.[route] ?? 0;
  for (const route of [...routesBoth, ...used]) assert.ok(count(route) > 0, `no request on "${route}"`);
  for (const route of unused) assert.equal(count(route), 0, `e2b@${version} is not expected to call "${route}"`);
  assert.equal(counters.envdApiKeySeen, 0, 'envd requests carried X-API-Key');
  assert.equal(counters.sandboxesAlive, 0, 'sandboxes left alive after the scenario');
});
await fetch(admin, { method: 'DELETE', headers: adminAuth });
console.log(r.summary());
process.exit(r.failed === 0 ? 0 : 1);
