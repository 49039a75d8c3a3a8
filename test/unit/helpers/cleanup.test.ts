// The end-to-end suites rely on test/helpers/cleanup.ts to leave nothing behind, whatever failed.
import { describe, expect, test } from '@jest/globals'
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Cleanup, startOwning, withCleanup } from '../../helpers/cleanup.js'

interface FakeServer {
  name: string
  stop(): Promise<void>
}

const server = (name: string, log: string[], fails = false): FakeServer => ({
  name,
  stop: async () => {
    await Promise.resolve()
    log.push(`stop ${name}`)
    if (fails) throw new Error(`${name} would not stop`)
  },
})

describe('Cleanup', () => {
  test('undoes everything, last registered first, and only once', async () => {
    const cleanup = new Cleanup()
    const log: string[] = []
    cleanup.track('registry', server('registry', log))
    cleanup.add('project', () => log.push('remove project'))
    cleanup.track('folder', { remove: () => Promise.resolve(log.push('remove folder')) })

    await cleanup.run()
    await cleanup.run()

    expect(log).toEqual(['remove folder', 'remove project', 'stop registry'])
  })

  test('a failing undo does not keep the others from running, and is reported by name', async () => {
    const cleanup = new Cleanup()
    const log: string[] = []
    cleanup.track('registry', server('registry', log))
    cleanup.track('webhook', server('webhook', log, true))
    cleanup.track('verdaccio', server('verdaccio', log))

    await expect(cleanup.run()).rejects.toThrow(
      'Cleanup failed for webhook: webhook would not stop',
    )
    expect(log).toEqual(['stop verdaccio', 'stop webhook', 'stop registry'])
  })

  test('startAll: what started is stopped at the end even when another start failed', async () => {
    const cleanup = new Cleanup()
    const log: string[] = []
    const starting = cleanup.startAll({
      registry: Promise.resolve(server('registry', log)),
      docker: Promise.reject(new Error('no daemon')),
      webhook: Promise.resolve(server('webhook', log)),
    })

    await expect(starting).rejects.toThrow('docker did not start: no daemon')
    await cleanup.run()
    expect(log).toEqual(['stop webhook', 'stop registry'])
  })

  test('startAll resolves to each server by name', async () => {
    const cleanup = new Cleanup()
    const log: string[] = []
    const { a, b } = await cleanup.startAll({
      a: Promise.resolve(server('a', log)),
      b: Promise.resolve(server('b', log)),
    })
    expect([a.name, b.name]).toEqual(['a', 'b'])
    await cleanup.run()
    expect(log).toEqual(['stop b', 'stop a'])
  })

  test('tempDir: a new folder, removed with what it holds', async () => {
    const cleanup = new Cleanup()
    const dir = await cleanup.tempDir('olympe-cleanup-test-')
    await writeFile(join(dir, 'file.txt'), 'x')
    expect(existsSync(join(dir, 'file.txt'))).toBe(true)

    await cleanup.run()
    expect(existsSync(dir)).toBe(false)
  })

  test('withCleanup: what the body registered is undone when it ends, and when it fails', async () => {
    const kept: string[] = []
    const result = await withCleanup(async (cleanup) => {
      kept.push(await cleanup.tempDir('olympe-cleanup-test-'))
      return 'done'
    })
    const failing = withCleanup(async (cleanup) => {
      kept.push(await cleanup.tempDir('olympe-cleanup-test-'))
      throw new Error('the body failed')
    })

    await expect(failing).rejects.toThrow('the body failed')
    expect(result).toBe('done')
    expect(kept.map((dir) => existsSync(dir))).toEqual([false, false])
  })

  test('startOwning: a start that fails undoes what it made; one that succeeds keeps it', async () => {
    const log: string[] = []
    const failing = startOwning(async (owned) => {
      owned.track('registry', server('registry', log))
      await Promise.resolve()
      throw new Error('never ready')
    })
    await expect(failing).rejects.toThrow('never ready')
    expect(log).toEqual(['stop registry'])

    const started = await startOwning((owned) => {
      owned.track('webhook', server('webhook', log))
      return Promise.resolve({ stop: () => owned.run() })
    })
    expect(log).toEqual(['stop registry'])
    await started.stop()
    expect(log).toEqual(['stop registry', 'stop webhook'])
  })
})
