// nop.mjs — the routebench peer runner of no router at all, in Node
// (docs/peer-protocol.md): the same protocol, loop and fold as the runners
// of peers/js, with a lookup that returns a constant.  Its figure is the
// cost of the Node runners' loop itself (a call, the fold, the request
// array), the floor under every Node peer's figure.  It takes every route;
// its answers, checked like any runner's, are the requests file's EXPECTED
// column, so it agrees wherever EXPECTED is linear's.
import { main } from './peer.mjs'

const expected = new Map()
main({
  name: 'nop-node',
  add () {},
  build () { return [] },
  requests (reqs) { for (const [m, p, e] of reqs) expected.set(m + ' ' + p, e) },
  lookup: (method, path) => expected.get(method + ' ' + path),
  bare: (method, path) => 1
}, process.argv.slice(2))
