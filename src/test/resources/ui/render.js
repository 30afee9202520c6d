// Runs the dashboard page's script under Node against a state document, with a minimal stand-in for
// the DOM, and prints the text the page would show (or the error it would show, exit status 1).
//   node render.js dashboard.html state.json events.json
"use strict";
const fs = require("fs");
const [page, statePath, eventsPath] = process.argv.slice(2);
const html = fs.readFileSync(page, "utf8");
const script = html.slice(html.indexOf("<script>") + "<script>".length, html.indexOf("</script>"));

class FakeNode {
  constructor(tag) { this.tag = tag; this.children = []; this.attrs = {}; this.style = {}; this.className = ""; }
  append(...c) { this.children.push(...c); }
  replaceChildren(...c) { this.children = c; }
  setAttribute(k, v) { this.attrs[k] = v; }
  set textContent(t) { this.children = [String(t)]; }
  get text() { return this.children.map(c => typeof c === "string" ? c : c.text).join(" "); }
}
const byId = {};
global.Node = FakeNode;
global.document = {
  createElement: tag => new FakeNode(tag),
  getElementById: id => byId[id] || (byId[id] = new FakeNode("div")),
};
global.fetch = async url => {
  if (url === "/ui/state") {
    return { ok: true, json: async () => JSON.parse(fs.readFileSync(statePath, "utf8")) };
  }
  if (url.startsWith("/ui/events?after=")) {
    // Every event on the first poll, none after.
    const all = JSON.parse(fs.readFileSync(eventsPath, "utf8"));
    return { ok: true, json: async () => url === "/ui/events?after=0" ? all : { events: [] } };
  }
  throw new Error("unexpected fetch of " + url);
};
let polls = 0;
global.setTimeout = (f, millis) => {
  // Two polls: the second makes rates from the first.
  if (++polls < 2) { f(); return; }
  const error = byId.error;
  if (error && error.style.display === "block") {
    console.log("ERROR " + error.text);
    process.exit(1);
  }
  console.log("READY " + byId.ready.text);
  console.log("MAIN " + byId.main.text);
};
new Function(script)();
