// The bank explorer page (docs/pages/explorer.md): reads the form, calls the WebAssembly build of
// the bank model and the explain renderer (banklab_explorer.js, docs/explorer/explorer_api.cpp),
// and shows the drawing, the counts and `banklab explain`'s text. The URL keeps the pattern
// (?op=ld&width=4&mask=ffffffff&expr=lane*32*4), so the lab pages can link to their own.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const form = { op: $("bx-op"), width: $("bx-width"), mask: $("bx-mask"), expr: $("bx-expr") };
  const params = new URLSearchParams(window.location.search);
  for (const k of Object.keys(form)) {
    if (params.has(k)) form[k].value = params.get(k);
  }
  if (typeof BanklabExplorer !== "function") {
    $("bx-status").textContent =
        "The WebAssembly bank model is not part of this build (em++ was not found when the site was built).";
    return;
  }
  const shellQuote = (s) => (/^[A-Za-z0-9_*+\-\/%.]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'");
  BanklabExplorer().then(function (mod) {
    function update() {
      const op = form.op.value, width = form.width.value, mask = form.mask.value.trim() || "ffffffff";
      const expr = form.expr.value;
      let cmd = "banklab explain " + op + " " + width + " " + shellQuote(expr);
      if (mask.toLowerCase().replace(/^0x/, "") !== "ffffffff") cmd += " --mask " + mask;
      $("bx-command").textContent = cmd;
      const out = JSON.parse(mod.ccall("banklab_explain", "string",
          ["string", "string", "string", "string", "string"], [op, width, mask, expr, ""]));
      if (!out.ok) {
        $("bx-status").textContent = out.error;
        $("bx-status").classList.add("bx-error");
        $("bx-counts").hidden = true;
        return;
      }
      $("bx-status").textContent = "";
      $("bx-status").classList.remove("bx-error");
      $("bx-wavefronts").textContent = String(out.wavefronts);
      $("bx-unit").textContent = out.wavefronts === 1 ? "wavefront" : "wavefronts";
      $("bx-minimum").textContent = String(out.minimum);
      $("bx-counts").hidden = false;
      $("bx-svg").innerHTML = out.svg;
      $("bx-svg").setAttribute("aria-label", out.text.split("\n").slice(0, 2).join(" "));
      $("bx-text").textContent = out.text;
      const q = new URLSearchParams({ op: op, width: width, mask: mask, expr: expr });
      window.history.replaceState(null, "", "?" + q.toString());
    }
    for (const el of Object.values(form)) {
      el.addEventListener("input", update);
      el.addEventListener("change", update);
    }
    update();
  }).catch(function (e) {
    $("bx-status").textContent = "The bank model could not start: " + e;
  });
})();
