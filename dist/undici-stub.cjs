// Written by scripts/build.js: undici is not bundled (see UNDICI_STUB there).
'use strict'
function notBundled() {
  throw new Error('olympe-deploy-actions: undici is not bundled, and no request of the actions goes through it; please report how this was reached.')
}
exports.ProxyAgent = class ProxyAgent {
  constructor(options) {
    this.options = { ...options }
  }
  dispatch() {
    notBundled()
  }
}
exports.fetch = notBundled
