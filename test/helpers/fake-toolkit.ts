// The fake toolkit (test/fixtures/fake-toolkit) as tests use it: its command line, its platform
// state, and variants of that state for "the platform changed" scenarios.
import { readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'

const ROOT = path.resolve(import.meta.dirname, '../..')
export const FAKE_TOOLKIT_DIR = path.join(ROOT, 'test/fixtures/fake-toolkit')
export const FAKE_TOOLKIT = path.join(FAKE_TOOLKIT_DIR, 'olympe.js')
export const PLATFORM_STATE = path.join(FAKE_TOOLKIT_DIR, 'platform-state.json')
/** `toolkit-command` for the fake: the machine's node runs it, as npx would. */
export const TOOLKIT_COMMAND = `node ${FAKE_TOOLKIT} snapshot`

export const IDS = {
  home: '10000000000000000000',
  olympe: '10000000000000000001',
  sales: '01850a59bb68c324907a',
  orders: '017d57e759b3e7ec670c',
  invoice: '018a88a4d5312b1501c6',
  invoiceTotal: '0191c2d3e4f5a6b7c8d9',
  shared: '01903b7f2c4e5a6d8e10',
  utils: '01903b7f2c4e5a6d8e11',
} as const

interface Element {
  name: string
  parent: string | null
  patch?: string
}

export interface PlatformState {
  credentials: { username: string; password: string }
  /** What the fake prints as `rndCook=` at debug level: a session token, found at run time. */
  sessionToken: string
  elements: Record<string, Element>
}

export function platformState(): PlatformState {
  return JSON.parse(readFileSync(PLATFORM_STATE, 'utf8')) as PlatformState
}

export const DRAW_USERNAME = platformState().credentials.username
export const DRAW_PASSWORD = platformState().credentials.password
export const SESSION_TOKEN = platformState().sessionToken

/** The inputs every snapshot step with the fake toolkit takes: its command and the login. */
export const TOOLKIT_INPUTS = {
  'toolkit-command': TOOLKIT_COMMAND,
  'draw-username': DRAW_USERNAME,
  'draw-password': DRAW_PASSWORD,
}

/** A snapshot configuration's one entry: the `sales` module, committed to `repo`'s main. */
export const salesSnapshot = (repo: string, commitMessage = 'Snapshot at {date}'): unknown => ({
  snapshooter: { name: 'sales', rootTags: [IDS.sales], outputDir: 'snapshot/sales' },
  git: { repo, branch: 'main', commitMessage },
})

/** Writes a changed copy of the platform state and returns its path (for FAKE_PLATFORM_STATE). */
export async function writePlatformState(
  file: string,
  change: (state: PlatformState) => void,
): Promise<string> {
  const state = platformState()
  change(state)
  await writeFile(file, JSON.stringify(state, null, 2))
  return file
}
