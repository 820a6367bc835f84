// The SDK a scenario runs, loaded and checked the same way by every scenario.

import { createRequire } from 'node:module';

// loadSDK imports the SDK module named by argv[2] (else $E2B_SDK_MODULE, else
// "e2b") after checking that it is the version argv[3] (else
// $E2B_SDK_VERSION) expects and that E2B_API_URL, E2B_SANDBOX_URL and
// E2B_API_KEY point the SDK somewhere. When a check fails it prints why and a
// failed summary, and exits 1.
export async function loadSDK() {
  const moduleName = process.argv[2] || process.env.E2B_SDK_MODULE || 'e2b';
  const expectedVersion = process.argv[3] || process.env.E2B_SDK_VERSION || '';
  const require = createRequire(import.meta.url);
  const sdkVersion = require(`${moduleName}/package.json`).version;
  if (expectedVersion && sdkVersion !== expectedVersion) {
    stop(`module ${moduleName} is e2b@${sdkVersion}, expected ${expectedVersion}`);
  }
  for (const name of ['E2B_API_URL', 'E2B_SANDBOX_URL', 'E2B_API_KEY']) {
    if (!process.env[name]) {
      stop(`${name} is not set: point the SDK at the emulator (see run.sh)`);
    }
  }
  return { sdk: await import(moduleName), moduleName, sdkVersion };
}

function stop(reason) {
  console.log(reason);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
