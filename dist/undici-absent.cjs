// Written by scripts/build.js: what `undici` resolves to in this bundle, which leaves it out.
'use strict'
const absent = (what) =>
  new Error(
    `undici is not bundled: olympe-deploy-actions sends its requests with node:http, and ${what} needs undici, which scripts/build.js leaves out of dist/`,
  )
// Made, never used, when @actions/github loads behind a proxy: only a request through it fails.
class ProxyAgent {
  async close() {}
  async destroy() {}
}
for (const method of ['dispatch', 'request', 'stream', 'pipeline', 'connect', 'upgrade'])
  ProxyAgent.prototype[method] = () => {
    throw absent("a request through @actions/http-client's getAgentDispatcher() (fetch or Octokit through a proxy)")
  }
exports.ProxyAgent = ProxyAgent
exports.fetch = async () => {
  throw absent("@actions/github's getOctokit() (its fetch)")
}
