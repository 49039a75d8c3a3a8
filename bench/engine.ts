// A Docker engine of the bench's own: the machine's dockerd binary started on a private socket,
// data root and bridge, so that "cold" can empty its build cache (`docker builder prune`)
// without touching the images or cache of anyone else using the machine's engine, and so that
// its memory and CPU can be read. Needs root, as dockerd does.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { run } from '../test/helpers/run-process.js'

export interface PrivateEngine {
  /** DOCKER_HOST for every docker command meant for this engine. */
  host: string
  /** dockerd and the containerd it started: the engine's processes. */
  pids(): Promise<number[]>
  stop(): Promise<void>
}

const WAIT_MS = 60_000

export async function startPrivateEngine(dir: string): Promise<PrivateEngine> {
  if (process.getuid?.() !== 0) {
    throw new Error('The build-images bench starts its own dockerd, which needs root.')
  }
  await mkdir(dir, { recursive: true })
  const socket = join(dir, 'docker.sock')
  const host = `unix://${socket}`
  // A bridge of its own: dockerd with `--bridge=none` deletes the machine's docker0.
  const bridge = `olyb${randomBytes(3).toString('hex')}`
  await run('ip', ['link', 'add', 'name', bridge, 'type', 'bridge'])
  await run('ip', ['addr', 'add', '172.31.250.1/24', 'dev', bridge])
  await run('ip', ['link', 'set', bridge, 'up'])
  const args = [
    '--data-root',
    join(dir, 'data'),
    '--exec-root',
    join(dir, 'exec'),
    '--pidfile',
    join(dir, 'docker.pid'),
    '-H',
    host,
    `--bridge=${bridge}`,
    '--iptables=false',
    '--ip6tables=false',
    '--ip-masq=false',
  ]
  const daemon = spawn('dockerd', args, { stdio: 'ignore', detached: true })
  const exited = new Promise((resolve) => daemon.once('exit', resolve))
  const env = { ...process.env, DOCKER_HOST: host }
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    try {
      await run('docker', ['info', '--format', '{{.ServerVersion}}'], { env })
      break
    } catch (error) {
      if (Date.now() > deadline || daemon.exitCode !== null) {
        daemon.kill('SIGTERM')
        await run('ip', ['link', 'del', bridge]).catch(() => undefined)
        throw error
      }
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }
  const pid = daemon.pid ?? 0
  return {
    host,
    pids: async () => [pid, ...(await childrenOf(pid))],
    stop: async () => {
      daemon.kill('SIGTERM')
      const killLater = setTimeout(() => daemon.kill('SIGKILL'), 30_000)
      await exited
      clearTimeout(killLater)
      await run('ip', ['link', 'del', bridge]).catch(() => undefined)
      // dockerd unmounts its layers when it stops; anything left would make rm fail.
      const mounts = (await readFile('/proc/mounts', 'utf8'))
        .split('\n')
        .map((line) => line.split(' ')[1] ?? '')
        .filter((point) => point.startsWith(dir))
      for (const point of mounts.reverse()) await run('umount', [point]).catch(() => undefined)
      await rm(dir, { recursive: true, force: true })
    },
  }
}

async function childrenOf(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')
  return text.trim().split(/\s+/).filter(Boolean).map(Number)
}
