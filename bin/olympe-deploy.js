#!/usr/bin/env node
// The command line runs the very bundle the GitHub action runs: `olympe-deploy <action> --flags`.
const COMMANDS = ['deploy', 'build-images', 'snapshot']
const [command, ...rest] = process.argv.slice(2)
if (!COMMANDS.includes(command ?? '')) {
  const asked = command === undefined || command === '--help' || command === '-h'
  const stream = asked ? process.stdout : process.stderr
  if (!asked) stream.write(`Error: unknown command '${command}'.\n`)
  stream.write(`Usage: olympe-deploy <${COMMANDS.join('|')}> [--<input> <value>]... [--help]\n`)
  process.exit(asked ? 0 : 2)
}
process.env.OLYMPE_DEPLOY_CLI = '1'
process.argv = [process.argv[0], process.argv[1], ...rest]
await import(new URL(`../dist/${command}/index.js`, import.meta.url).href)
