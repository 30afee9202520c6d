// Runs the dashboard page's script under Node against a state document, with a minimal stand-in for
// the DOM, and prints the text the page would show (or the error it would show, exit status 1); then
// fills in and submits its two forms, answered from the files given, and prints what they show.
//   node render.js dashboard.html state.json events.json explain.json whatif.json "id:port, id:port"
"use strict";
const fs = require("fs");
const [page, statePath, eventsPath, explainPath, whatIfPath, failing] = process.argv.slice(2);
const html = fs.readFileSync(page, "utf8");
const script = html.slice(html.indexOf("<script>") + "<script>".length, html.indexOf("</script>"));

class FakeNode {
  constructor(tag) {
    this.tag = tag; this.children = []; this.attrs = {}; this.style = {}; this.className = ""; this.value = "";
    this.handlers = {};
  }
  addEventListener(type, handler) { this.handlers[type] = handler; }
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
  const answers = { "/ui/explain?": explainPath, "/ui/what-if?": whatIfPath };
  for (const [prefix, file] of Object.entries(answers)) {
    if (url.startsWith(prefix)) {
      asked.push(url);
      return { ok: true, json: async () => JSON.parse(fs.readFileSync(file, "utf8")) };
    }
  }
  throw new Error("unexpected fetch of " + url);
};
const asked = [];
const settle = () => new Promise(resolve => setImmediate(resolve));
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
  console.log("CLUSTER " + byId.cluster.text);
  console.log("MAIN " + byId.main.text);
  forms().catch(e => { console.log("ERROR " + e.stack); process.exit(1); });
};

async function forms() {
  const node = id => document.getElementById(id);
  const submit = id => node(id).handlers.submit({ preventDefault() {} });
  node("explain-path").value = "/x";
  submit("explain");
  node("whatif-group").value = node("whatif-group").children[0].attrs.value;
  node("whatif-fail").value = failing || "";
  submit("whatif");
  for (let i = 0; i < 5; i++) { await settle(); }
  console.log("ASKED " + asked.join(" "));
  console.log("EXPLAINED " + node("explained").text);
  console.log("WHATIF " + node("whatif-result").text);
}
new Function(script)();
