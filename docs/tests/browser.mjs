// The course site in a real browser: Debian's chromium driven by playwright-core (docs/package.json).
//
//   node browser.mjs search      HTML_DIR                 Pagefind finds the course text
//   node browser.mjs explorer    HTML_DIR                 the bank explorer computes in WebAssembly
//   node browser.mjs screenshots HTML_DIR SHOTS_DIR       pages at a phone, 1024 px and a wide screen
//
// The site is served from HTML_DIR by a small HTTP server inside this script (Pagefind loads its
// index with fetch(), which file:// does not allow). Exit 0 pass, 1 fail, 77 skip (reason printed).
// The labs are read from their descriptions (docs/scripts/site_labs.py, through python/banklab/lab), so a
// new lab is searched, explored and photographed with no edit here. BANKLAB_PYTHON: the Python to
// run it with (CMake passes its own; default python3).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const SKIP = 77;
const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "..", "package.json"));

function skip(msg) { console.log("SKIP: " + msg); process.exit(SKIP); }
const failures = [];
function fail(msg) { failures.push(msg); console.log("FAIL: " + msg); }
function finish(what) {
  if (failures.length) { console.log(`\n${failures.length} problem(s) in ${what}.`); process.exit(1); }
  console.log("OK: " + what);
  process.exit(0);
}

let chromium;
try { ({ chromium } = require("playwright-core")); } catch (e) {
  skip("playwright-core is not installed in docs/node_modules: run tools/setup-debian --all (npm ci --prefix docs)");
}
const exe = process.env.BANKLAB_CHROMIUM || ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => fs.existsSync(p));
if (!exe) skip("chromium not found (apt-get install chromium)");

const [cmd, htmlDir, shotsDir] = process.argv.slice(2);
if (!cmd || !htmlDir) { console.error("usage: node browser.mjs search|explorer|screenshots HTML_DIR [SHOTS_DIR]"); process.exit(2); }
if (!fs.existsSync(path.join(htmlDir, "index.html"))) {
  console.log(`FAIL: ${htmlDir}/index.html does not exist: the docs build (test docs.build) did not produce the site`);
  process.exit(1);
}

// [{num, folder, page, title, explore: ["ld 4 lane*32*4", ...]}] of every lab with a page.
let LABS;
try {
  LABS = JSON.parse(execFileSync(process.env.BANKLAB_PYTHON || "python3",
    [path.join(here, "..", "scripts", "site_labs.py"), "--source", path.join(here, "..", "..")], { encoding: "utf8" }));
} catch (e) {
  console.log(`FAIL: the labs could not be read (docs/scripts/site_labs.py): ${e.message}`);
  process.exit(1);
}
if (!LABS.length) { console.log("FAIL: no lab found in labs/*/judge/lab.toml: nothing to check on the site"); process.exit(1); }

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml",
  ".png": "image/png", ".json": "application/json", ".wasm": "application/wasm", ".pf_meta": "application/octet-stream" };
function serve(root) {
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, "http://x");
    const p = path.normalize(path.join(root, decodeURIComponent(u.pathname)));
    if (!p.startsWith(path.resolve(root))) { res.writeHead(403); res.end(); return; }
    fs.readFile(p, (err, data) => {
      if (err) { res.writeHead(404); res.end("not found"); return; }
      res.writeHead(200, { "content-type": TYPES[path.extname(p)] || "application/octet-stream" });
      res.end(data);
    });
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(server)));
}

const server = await serve(path.resolve(htmlDir));
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({
  executablePath: exe,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const errors = [];
async function newPage(width, height = 900) {
  const page = await browser.newPage({ viewport: { width, height } });
  page.on("pageerror", (e) => errors.push(`${page.url()}: ${e.message}`));
  return page;
}

try {
  if (cmd === "search") await search();
  else if (cmd === "explorer") await explorer();
  else if (cmd === "screenshots") await screenshots();
  else { console.error("unknown command " + cmd); process.exit(2); }
} catch (e) {
  fail(`${cmd}: ${e.stack || e}`);
} finally {
  await browser.close();
  server.close();
}
finish(cmd);

// ---- search: Pagefind over the built HTML ----------------------------------------------------
async function search() {
  if (!fs.existsSync(path.join(htmlDir, "pagefind", "pagefind-ui.js")))
    return fail(`${htmlDir}/pagefind/ is missing: the docs build did not run Pagefind (npm ci --prefix docs)`);
  // "Lab NN <its description's title>" -> that lab's page (by file name). (The title alone is not
  // enough: "Swizzle" also names the API's Swizzle pages, which rank first.)
  const cases = LABS.map((l) => [`Lab ${l.num} ${l.title}`, l.page]);
  const page = await newPage(1280);
  for (const [word, want] of cases) {
    await page.goto(base + "search_course.html?q=" + encodeURIComponent(word));
    const results = page.locator(".pagefind-ui__result-link");
    try { await results.first().waitFor({ timeout: 15000 }); } catch (e) {
      fail(`searching "${word}" on search_course.html shows no result (expected ${want})`);
      continue;
    }
    // Pagefind's UI draws each result before it has loaded it (its link is "/" until then): read
    // the links until the wanted page is among them or 15 s have passed (a loaded machine is slow).
    let hrefs = [], titles = [], hit = false;
    for (const t0 = Date.now(); ; ) {
      hrefs = await results.evaluateAll((as) => as.map((a) => a.getAttribute("href")));
      titles = await results.allTextContents();
      hit = hrefs.some((h) => h && h.split(/[?#]/)[0].endsWith(want));
      if (hit || Date.now() - t0 > 15000) break;
      await page.waitForTimeout(250);
    }
    if (!hit) fail(`searching "${word}" does not list ${want}; it lists: ${hrefs.join(", ")}`);
    else console.log(`"${word}": ${hrefs.length} result(s) shown, ${want} among them (first: ${titles[0]})`);
  }
}

// ---- explorer: the WebAssembly model in the page -----------------------------------------------
async function explorer() {
  const page = await newPage(1280);
  await page.goto(base + "explorer.html");
  const counts = page.locator("#bx-counts");
  const wave = page.locator("#bx-wavefronts");
  for (const [expr, want] of [["lane*32*4", "32"], ["lane*33*4", "1"]]) {
    await page.fill("#bx-expr", "");
    await page.type("#bx-expr", expr);
    await counts.waitFor({ state: "visible", timeout: 15000 });
    await page.waitForFunction(([e]) => document.getElementById("bx-command").textContent.includes(e), [expr]);
    const got = (await wave.textContent()).trim();
    const svg = await page.locator("#bx-svg svg").count();
    if (got !== want) fail(`typed ${expr}: the explorer reads ${got} wavefronts, banklab explain says ${want}`);
    else if (svg !== 1) fail(`typed ${expr}: no drawing in #bx-svg`);
    else console.log(`typed ${expr}: ${got} wavefronts, drawing shown`);
  }
  // each lab page's "Your work" link opens the explorer with that lab's pattern filled in (every
  // lab whose figures.txt has an `@explore` line; its first. The handout's own explorer links
  // come earlier on the page.)
  const exploring = LABS.filter((l) => l.explore.length);
  if (!exploring.length) fail("no lab has an `@explore` line in labs/NN_name/figures.txt: no lab page links to the explorer");
  for (const l of exploring) {
    const lab = await newPage(1280);
    await lab.goto(base + l.page);
    const link = lab.locator("div.banklab-work a.banklab-explore").first();
    if (!(await link.count())) { fail(`${l.page} has no link to the bank explorer in its "Your work" section (labs/${l.folder}/figures.txt has @explore ${l.explore[0]})`); continue; }
    await link.click();
    await lab.waitForSelector("#bx-counts:not([hidden])", { timeout: 15000 });
    const expr = await lab.inputValue("#bx-expr");
    const w = (await lab.locator("#bx-wavefronts").textContent()).trim();
    const want = l.explore[0].split(/\s+/).slice(2).join("");
    if (expr.replace(/\s+/g, "") !== want) fail(`the lab ${l.num} link opened the explorer on "${expr}", not its pattern "${want}" (labs/${l.folder}/figures.txt)`);
    else console.log(`lab ${l.num}'s link opens the explorer on ${expr}: ${w} wavefronts`);
    await lab.close();
  }
  // a hover label of the drawing works (no pointer-events:none)
  const hover = await page.evaluate(() => {
    const g = document.querySelector("#bx-svg svg g > title")?.parentElement;
    const rect = g && g.querySelector("rect");
    if (!rect) return null;
    rect.scrollIntoView();
    const bb = rect.getBoundingClientRect();
    const hit = document.elementFromPoint(bb.x + bb.width / 2, bb.y + bb.height / 2);
    return { ok: !!hit && g.contains(hit), label: g.querySelector("title").textContent };
  });
  if (!hover) fail("the explorer's drawing has no hover labels (<title> in its cells)");
  else if (!hover.ok) fail(`the pointer does not reach the explorer's cell labelled "${hover.label}"`);
  else console.log(`hover label of the explorer's drawing reachable: "${hover.label}"`);
  for (const e of errors) fail(`JavaScript error: ${e}`);
}

// ---- screenshots at three widths ---------------------------------------------------------------
async function screenshots() {
  fs.mkdirSync(shotsDir, { recursive: true });
  const widths = [[390, "phone"], [1024, "1024"], [1440, "wide"]];
  const pages = ["index.html", ...LABS.map((l) => l.page), "hardware.html", "explorer.html"];
  for (const [w, name] of widths) {
    for (const p of pages) {
      const page = await newPage(w);
      await page.goto(base + p, { waitUntil: "load" });
      await page.waitForTimeout(300);
      const file = path.join(shotsDir, `${p.replace(".html", "")}_${name}.png`);
      await page.screenshot({ path: file, fullPage: false });
      // a lab page: its "Your work" section (the student's kernel.cu), scrolled into view
      const work = page.locator("div.banklab-work, [id$='_work']").first();
      if (await work.count()) {
        await work.scrollIntoViewIfNeeded();
        await page.waitForTimeout(200);
        await page.screenshot({ path: file.replace(/\.png$/, "_work.png"), fullPage: false });
      }
      // and the first figure (or the explorer's drawing), scrolled into view
      const first = page.locator(".banklab-figure").first();
      if (await first.count()) {
        await first.scrollIntoViewIfNeeded();
        await page.waitForTimeout(200);
        await page.screenshot({ path: file.replace(/\.png$/, "_figure.png"), fullPage: false });
      }
      // every figure: its box fits the viewport (scrolls inside its own container if wider),
      // has an accessible name (alt), and receives the pointer (hover labels work)
      const figs = await page.evaluate(() => [...document.querySelectorAll(".banklab-figure")].map((d) => {
        const o = d.querySelector("object, svg, img");
        const r = d.getBoundingClientRect();
        const style = o ? getComputedStyle(o) : null;
        return { name: (o && (o.getAttribute("aria-label") || o.getAttribute("alt"))) || d.getAttribute("aria-label") || "",
                 right: r.right, pe: style ? style.pointerEvents : "", w: o ? o.getBoundingClientRect().width : 0,
                 data: o ? (o.getAttribute("data") || o.tagName) : "" };
      }));
      const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      if (pageWidth > w + 1) fail(`${p} at ${w} px: the page is ${pageWidth} px wide (it scrolls sideways)`);
      for (const f of figs) {
        if (!f.name) fail(`${p} at ${w} px: figure ${f.data} has no alt text / aria-label`);
        if (f.pe === "none") fail(`${p} at ${w} px: figure ${f.data} has pointer-events:none (no hover labels)`);
        if (f.right > w + 1) fail(`${p} at ${w} px: figure ${f.data} sticks out of the window (right edge ${Math.round(f.right)})`);
        if (f.w < 600 && f.data.endsWith(".svg")) fail(`${p} at ${w} px: figure ${f.data} is drawn ${Math.round(f.w)} px wide: its labels are too small to read (scroll it instead)`);
      }
      // hover labels: in each figure's own document, the point at the centre of a cell hits that
      // cell's group, whose <title> the browser shows on hover
      let hovered = 0;
      for (const fr of page.frames().filter((f) => f.url().endsWith(".svg"))) {
        const r = await fr.evaluate(() => {
          const g = document.querySelector("g > title")?.parentElement;
          const rect = g && g.querySelector("rect");
          if (!rect) return null;
          const bb = rect.getBoundingClientRect();
          const hit = document.elementFromPoint(bb.x + bb.width / 2, bb.y + bb.height / 2);
          return { ok: !!hit && g.contains(hit), label: g.querySelector("title").textContent };
        });
        if (r && !r.ok) fail(`${p} at ${w} px: ${fr.url()}: the pointer does not reach the cell labelled "${r.label}"`);
        if (r && r.ok) hovered++;
      }
      console.log(`${file}: ${figs.length} figure(s), ${hovered} with a working hover label`);
      await page.close();
    }
  }
  for (const e of errors) fail(`JavaScript error: ${e}`);
}
