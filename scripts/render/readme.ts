import { isWholeSecret, type ActionDefinition } from '../../src/core/definition.js'
import { tableCell } from '../../src/core/shared/markdown.js'

export function renderInputsTable(definition: ActionDefinition): string {
  const rows = Object.entries(definition.inputs).map(([name, spec]) => {
    const notes = [spec.required ? '**required**' : '', isWholeSecret(spec) ? 'secret' : '']
      .filter(Boolean)
      .join(', ')
    const fallback = spec.default ? `\`${spec.default}\`` : ''
    return `| \`${name}\` | ${tableCell(spec.description)}${notes ? ` (${notes})` : ''} | ${fallback} |`
  })
  return ['| Input | Description | Default |', '|---|---|---|', ...rows].join('\n')
}

export function renderOutputsTable(definition: ActionDefinition): string {
  const rows = Object.entries(definition.outputs).map(
    ([name, spec]) => `| \`${name}\` | ${tableCell(spec.description)} |`,
  )
  return ['| Output | Description |', '|---|---|', ...rows].join('\n')
}

/** Replaces the text between `<!-- BEGIN GENERATED: key -->` and its END marker of `path`. */
export function replaceBetweenMarkers(
  document: string,
  key: string,
  content: string,
  path: string,
): string {
  const begin = `<!-- BEGIN GENERATED: ${key} -->`
  const end = `<!-- END GENERATED: ${key} -->`
  const start = document.indexOf(begin)
  const stop = document.indexOf(end)
  if (start === -1 || stop === -1 || stop < start)
    throw new Error(`${path} lacks the markers for '${key}'.`)
  return `${document.slice(0, start + begin.length)}\n${content}\n${document.slice(stop)}`
}
