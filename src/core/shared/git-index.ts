/**
 * The paths a git index file (`.git/index`) lists: what the checkout's commit holds (plus what was
 * staged since), read without git, for a job image that has none. The format is git's own
 * (https://git-scm.com/docs/index-format): versions 2, 3 and 4, with object names of SHA-1 (20
 * bytes) or SHA-256 (32 bytes). A split index (the `link` extension) keeps most entries in another
 * file, so this one alone does not say: it is refused, as is anything that is no index.
 */
import type { Problem } from './problem.js'
export function indexPaths(index: Uint8Array, hashBytes: 20 | 32): { paths: string[] } | Problem {
  const view = new DataView(index.buffer, index.byteOffset, index.byteLength)
  const ascii = (at: number): string => String.fromCharCode(...index.subarray(at, at + 4))
  if (index.length < 12 || ascii(0) !== 'DIRC')
    return { problem: 'it is not a git index (no DIRC signature)' }
  const version = view.getUint32(4)
  if (version < 2 || version > 4) return { problem: `its version ${version} is not 2, 3 or 4` }
  const count = view.getUint32(8)
  const decoder = new TextDecoder()
  const paths: string[] = []
  let previous: Uint8Array = new Uint8Array()
  let offset = 12
  for (let entry = 0; entry < count; entry++) {
    // ctime, mtime, dev, ino, mode, uid, gid, size (40 bytes), the object name, then the flags.
    const flagsAt = offset + 40 + hashBytes
    if (flagsAt + 2 > index.length) return truncated
    let at = flagsAt + 2
    if (version >= 3 && (view.getUint16(flagsAt) & EXTENDED) !== 0) at += 2
    let path: Uint8Array
    if (version === 4) {
      // The path is the previous one less `strip` bytes, then the bytes up to a NUL; no padding.
      const [strip, next] = varint(index, at)
      const end = index.indexOf(0, next)
      if (end < 0 || strip > previous.length) return truncated
      path = new Uint8Array([
        ...previous.subarray(0, previous.length - strip),
        ...index.subarray(next, end),
      ])
      offset = end + 1
    } else {
      // NUL-terminated, then padded with NULs to a multiple of 8 bytes from the entry's start.
      const end = index.indexOf(0, at)
      if (end < 0) return truncated
      path = index.subarray(at, end)
      offset += (end - offset + 8) & ~7
    }
    previous = path
    paths.push(decoder.decode(path))
  }
  // The extensions, up to the checksum: each a signature and a size.
  while (offset + 8 <= index.length - hashBytes) {
    if (ascii(offset) === 'link')
      return { problem: 'it is a split index, whose entries are kept in another file too' }
    offset += 8 + view.getUint32(offset + 4)
  }
  return { paths }
}

const EXTENDED = 0x4000
const truncated = { problem: 'it ends in the middle of an entry' }

/** git's offset encoding (varint.c): 7 bits a byte, the high bit saying that more follow. */
function varint(bytes: Uint8Array, at: number): [number, number] {
  let byte = bytes[at++] ?? 0
  let value = byte & 0x7f
  while (byte & 0x80) {
    byte = bytes[at++] ?? 0
    value = ((value + 1) << 7) | (byte & 0x7f)
  }
  return [value, at]
}
