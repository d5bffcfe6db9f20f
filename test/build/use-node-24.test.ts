import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/db/paths.js';

/**
 * scripts/use-node-24.sh, sourced by a strict bash (`set -euo pipefail`) as .ci/run does, against stand-ins
 * on PATH: a `node` that reports a chosen version (and otherwise runs the real node, which the script uses
 * to hash the download), an `npm` that either must not be called or packs a tarball that is not the
 * pinned Node. Nothing is downloaded; the cache is a temporary XDG_CACHE_HOME.
 */

const execFileAsync = promisify(execFile);
const SCRIPT = path.join(PROJECT_ROOT, 'scripts', 'use-node-24.sh');
const linuxPackage = process.platform === 'linux' && ['x64', 'arm64'].includes(process.arch);

let dir: string;
let fakeBin: string;
let cache: string;

async function writeExecutable(file: string, text: string): Promise<void> {
  await writeFile(file, text);
  await chmod(file, 0o755);
}

/** A `node` answering `-p process.versions.node` with `version`, the real node for anything else. */
async function fakeNode(version: string): Promise<void> {
  await writeExecutable(
    path.join(fakeBin, 'node'),
    [
      '#!/bin/sh',
      `if [ "$1" = "-p" ] && [ "$2" = "process.versions.node" ]; then echo ${version}; exit 0; fi`,
      `exec "${process.execPath}" "$@"`,
      '',
    ].join('\n'),
  );
}

/** Sources the script in a strict bash; prints what it exported after it. */
async function source(): Promise<{
  code: number;
  stdout: string;
  stderr: string;
  after: Record<string, string>;
}> {
  const probe = [
    'set -euo pipefail',
    `source "${SCRIPT}"`,
    'echo "PATH=$PATH"',
    'echo "NODEDIR=${npm_config_nodedir:-}"',
    'echo "VERSION=$(node -p process.versions.node)"',
  ].join('\n');
  const env = {
    PATH: [fakeBin, '/usr/bin', '/bin'].join(path.delimiter),
    HOME: dir,
    XDG_CACHE_HOME: cache,
  };
  try {
    const { stdout, stderr } = await execFileAsync('bash', ['-c', probe], { env, cwd: PROJECT_ROOT });
    const lines = stdout.trimEnd().split('\n');
    const after = Object.fromEntries(
      lines
        .filter((l) => /^(PATH|NODEDIR|VERSION)=/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    const own = lines.filter((l) => !/^(PATH|NODEDIR|VERSION)=/.test(l)).join('\n');
    return { code: 0, stdout: own, stderr, after };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr, after: {} };
  }
}

function pinnedVersion(): Promise<string> {
  return execFileAsync('bash', ['-c', `grep -oP '^TRACKSYNC_NODE_VERSION=\\K.*' "${SCRIPT}"`]).then((r) =>
    r.stdout.trim(),
  );
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tracksync-use-node-'));
  fakeBin = path.join(dir, 'bin');
  cache = path.join(dir, 'cache');
  await mkdir(fakeBin);
  await writeExecutable(path.join(fakeBin, 'npm'), '#!/bin/sh\necho "npm must not be called" >&2\nexit 97\n');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('scripts/use-node-24.sh', () => {
  it('keeps a Node 24 already on PATH, fetching nothing and leaving PATH as it was', async () => {
    await fakeNode('24.1.0');
    const result = await source();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`Node 24.1.0 (${path.join(fakeBin, 'node')})`);
    expect(result.after.PATH?.split(path.delimiter)[0]).toBe(fakeBin);
    expect(result.after.VERSION).toBe('24.1.0');
  });

  it.runIf(linuxPackage)(
    'on an older Node, puts the cached pinned Node first on PATH and its headers in npm_config_nodedir',
    async () => {
      await fakeNode('20.20.2');
      const version = await pinnedVersion();
      const home = path.join(cache, 'tracksync', `node-${version}`);
      await mkdir(path.join(home, 'bin'), { recursive: true });
      await mkdir(path.join(home, 'include', 'node'), { recursive: true });
      await writeFile(path.join(home, 'include', 'node', 'node_version.h'), '');
      await writeExecutable(path.join(home, 'bin', 'node'), `#!/bin/sh\necho ${version}\n`);

      const result = await source();
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.split('\n')).toHaveLength(1);
      expect(result.stdout).toContain(`Node ${version} (${path.join(home, 'bin', 'node')}`);
      expect(result.after.PATH?.split(path.delimiter)[0]).toBe(path.join(home, 'bin'));
      expect(result.after.NODEDIR).toBe(home);
      expect(result.after.VERSION).toBe(version);
    },
  );

  it.runIf(linuxPackage)(
    'refuses a download that is not the pinned Node and leaves nothing in the cache',
    async () => {
      await fakeNode('20.20.2');
      await writeExecutable(
        path.join(fakeBin, 'npm'),
        [
          '#!/bin/sh',
          '[ "$1" = "pack" ] || exit 97',
          'mkdir -p package/bin && printf "#!/bin/sh\\necho 24.0.0\\n" > package/bin/node',
          'tar -czf impostor.tgz package && rm -rf package',
          'echo impostor.tgz',
          '',
        ].join('\n'),
      );
      const result = await source();
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('does not match the pinned checksum');
      expect(await readdir(path.join(cache, 'tracksync'))).toEqual([]);
    },
  );
});
