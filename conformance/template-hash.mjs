// Prints the files hash E2B's SDK computes for COPY steps, and writes
// archives the way the SDK does (node-tar, the same options), so Go tests can
// compare the provider's hashing and archives with the SDK's.
//
// stdin: {"dir": "/abs/context", "ignore": ["*.log"],
//         "copies": [{"src": "app", "dest": "/app", "resolveSymlinks": false}],
//         "archives": [{"paths": ["app", "app/a.txt"], "follow": false, "out": "/abs/x.tar.gz"}]}
// stdout: {"hashes": ["<hex or null>", ...], "errors": ["<message or null>", ...]}
import { Template } from 'e2b';
import { create } from 'tar';

const input = JSON.parse(await new Promise((resolve) => {
  let data = '';
  process.stdin.on('data', (c) => { data += c; });
  process.stdin.on('end', () => resolve(data));
}));

for (const a of input.archives ?? []) {
  await create({ gzip: true, cwd: input.dir, follow: a.follow, noDirRecurse: true, file: a.out }, a.paths);
}

const hashes = [];
const errors = [];
for (const c of input.copies ?? []) {
  try {
    const t = Template({ fileContextPath: input.dir, fileIgnorePatterns: input.ignore ?? [] })
      .fromImage('e2bdev/base')
      .copy(c.src, c.dest, { resolveSymlinks: c.resolveSymlinks ?? false });
    const json = JSON.parse(await Template.toJSON(t, true));
    const step = json.steps.find((s) => s.type === 'COPY');
    hashes.push(step.filesHash);
    errors.push(null);
  } catch (err) {
    hashes.push(null);
    errors.push(String(err?.message ?? err));
  }
}
process.stdout.write(JSON.stringify({ hashes, errors }));
