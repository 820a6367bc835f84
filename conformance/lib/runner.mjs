// A tiny sequential step runner: every step is reported by name, a failing
// step does not stop the scenario, and steps whose prerequisites failed are
// reported as failed (with the reason) instead of crashing on missing state.

export class Runner {
  constructor(label) {
    this.label = label;
    this.passed = 0;
    this.failed = 0;
    this.failures = [];
    this.done = new Map(); // step name -> true (passed) | false (failed)
  }

  // step runs fn and records the outcome. needs lists the names of steps
  // that must have passed first; a step still running after timeoutMs fails
  // so that a hung stream cannot stall the whole run.
  async step(name, fn, { needs = [], timeoutMs = 180_000 } = {}) {
    const started = Date.now();
    const missing = needs.filter((n) => this.done.get(n) !== true);
    if (missing.length > 0) {
      const err = new Error(`not run: prerequisite failed: ${missing.join(', ')}`);
      err.stack = undefined; // the reason says it all
      this.record(name, false, started, err);
      return;
    }
    let timer;
    const expired = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`step did not finish within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    try {
      await Promise.race([fn(), expired]);
      this.record(name, true, started);
    } catch (err) {
      this.record(name, false, started, err);
    } finally {
      clearTimeout(timer);
    }
  }

  record(name, ok, started, err) {
    const ms = Date.now() - started;
    this.done.set(name, ok);
    if (ok) {
      this.passed++;
      console.log(`ok   ${name} (${ms} ms)`);
      return;
    }
    this.failed++;
    this.failures.push({ name, err });
    console.log(`FAIL ${name} (${ms} ms)`);
    console.log(indent(describe(err)));
  }

  summary() {
    return `${this.passed} passed, ${this.failed} failed`;
  }
}

function describe(err) {
  if (!err) return 'unknown error';
  const lines = [`${err.name ?? 'Error'}: ${err.message}`];
  if (err.code === 'ERR_ASSERTION' && err.expected !== undefined) {
    lines.push(`expected: ${safeJSON(err.expected)}`, `actual:   ${safeJSON(err.actual)}`);
  }
  if (err.cause) lines.push(`cause: ${err.cause?.message ?? err.cause}`);
  if (err.stack) {
    // Keep only the scenario's own frames: they say which assertion failed.
    const own = err.stack.split('\n').filter((l) => l.includes('scenario.mjs'));
    lines.push(...own.slice(0, 3).map((l) => l.trim()));
  }
  return lines.join('\n');
}

function safeJSON(v) {
  if (v instanceof RegExp) return String(v);
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

function indent(text) {
  return text
    .split('\n')
    .map((l) => `     ${l}`)
    .join('\n');
}

// poll calls fn until it returns a truthy value or the deadline passes; it
// waits for eventually-consistent state (metrics samples, a killed process
// disappearing), never measures speed.
export async function poll(fn, { timeoutMs = 15000, intervalMs = 250 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

// rejects awaits promise and returns the error it rejected with, failing
// when it resolves.
export async function rejects(promise, what) {
  let value;
  try {
    value = await promise;
  } catch (err) {
    return err;
  }
  throw new Error(`${what}: expected an error, got ${safeJSON(value)}`);
}
