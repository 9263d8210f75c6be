// Release picker: choose the upstream release you have installed, and the notes that do not hold in it are flagged.
//
// Each function header's strip (.il-history) carries its distribution, releases and installed release
// (data-il-dist, data-il-releases, data-il-installed); each note carries one letter per release
// (data-il-states: u holds, c changed, m moved, d deleted, a not yet present, r unreadable), written from
// reports/history.json. The choice is remembered per distribution (localStorage), so every page opens with
// the release last picked; while one is picked, a banner at the top of every page names it and resets it in
// one click. The matrix page opens each table scrolled to the installed release's column.
// Where the scenarios were also run on the picked release (reports/history-runs.json), a note carries its
// run state there (data-il-runs="0.38.0=f 0.39.0=h": h held, f failed, n not run, r ran with nothing
// checked, a not in that release) and gets a second label saying how its claim fared when run.
(() => {
  "use strict";
  const WORDS = { u: "holds", c: "changed", m: "moved", d: "deleted", a: "not yet present", r: "unreadable" };
  const RUNS = {
    h: ["▶", "held"],
    f: ["✗", "failed"],
    n: ["○", "not run"],
    r: ["▷", "ran, nothing checked"],
    a: ["·", "not in this release"],
  };
  const KEY = "infralens-release:";

  function remembered(dist) {
    try {
      return localStorage.getItem(KEY + dist) || "";
    } catch (error) {
      return "";
    }
  }

  function remember(dist, release) {
    try {
      if (release) localStorage.setItem(KEY + dist, release);
      else localStorage.removeItem(KEY + dist);
    } catch (error) {
      // private windows may refuse storage: the choice then lasts for this page only
    }
  }

  function rememberedAll() {
    const found = new Map();
    try {
      for (let index = 0; index < localStorage.length; index += 1) {
        const key = localStorage.key(index);
        if (key && key.startsWith(KEY) && localStorage.getItem(key)) found.set(key.slice(KEY.length), localStorage.getItem(key));
      }
    } catch (error) {
      // no storage: nothing was remembered
    }
    return found;
  }

  function strips(dist) {
    return [...document.querySelectorAll(".il-history[data-il-releases]")].filter((s) => s.dataset.ilDist === dist);
  }

  function installedOf(dist) {
    const strip = strips(dist)[0];
    return strip ? strip.dataset.ilInstalled || "" : "";
  }

  function apply(dist, release) {
    const all = strips(dist);
    if (!all.length) return;
    const releases = all[0].dataset.ilReleases.split(" ");
    const at = release && release !== installedOf(dist) ? releases.indexOf(release) : -1;
    for (const fn of document.querySelectorAll(".infralens-function")) {
      let stale = 0;
      let notes = 0;
      let ran = 0;
      let held = 0;
      for (const note of fn.querySelectorAll(".il-note[data-il-states]")) {
        if (note.dataset.ilDist !== dist) continue;
        notes += 1;
        const letter = at >= 0 ? note.dataset.ilStates.charAt(at) : "u";
        const flagged = letter !== "u" && letter !== "";
        note.classList.toggle("il-stale", flagged);
        let label = note.querySelector(".il-stale-label");
        if (flagged) {
          stale += 1;
          if (!label) {
            label = document.createElement("span");
            label.className = "il-stale-label";
            note.querySelector(".il-note-foot")?.appendChild(label);
          }
          label.textContent = `${WORDS[letter] || letter} in ${release}`;
        } else if (label) {
          label.remove();
        }
        const run = at >= 0 ? runOf(note, release) : "";
        let runLabel = note.querySelector(".il-run-label");
        if (run && RUNS[run]) {
          ran += 1;
          if (run === "h") held += 1;
          if (!runLabel) {
            runLabel = document.createElement("span");
            note.querySelector(".il-note-foot")?.appendChild(runLabel);
          }
          runLabel.className = `il-run-label il-run-${run}`;
          runLabel.textContent = `${RUNS[run][0]} ${RUNS[run][1]} when run on ${release}`;
        } else if (runLabel) {
          runLabel.remove();
        }
      }
      const strip = fn.querySelector(".il-history");
      if (!strip || strip.dataset.ilDist !== dist) continue;
      strip.querySelectorAll(".il-h").forEach((cell, index) => cell.classList.toggle("il-h-picked", index === at));
      const select = strip.querySelector("select");
      if (select) select.value = at >= 0 ? release : "";
      const verdict = strip.querySelector(".il-history-verdict");
      if (verdict) {
        verdict.textContent = at < 0 ? "" : stale ? `${stale} of ${notes} notes do not hold in ${release}` : `all ${notes} notes hold in ${release}`;
        if (ran) verdict.textContent += `; when run there, ${held} of ${ran} held`;
        verdict.classList.toggle("il-history-bad", stale > 0);
      }
    }
  }

  // The note's run state on one release ("" when its scenarios were not run there).
  function runOf(note, release) {
    for (const pair of (note.dataset.ilRuns || "").split(" ")) {
      const [name, letter] = pair.split("=");
      if (name === release) return letter || "";
    }
    return "";
  }

  function pick(dist, release) {
    const chosen = release === installedOf(dist) ? "" : release;
    remember(dist, chosen);
    apply(dist, chosen);
    banner();
  }

  // One line per distribution whose picked release is not the installed one, at the top of the page.
  function banner() {
    document.querySelector(".il-release-banner")?.remove();
    const picked = [...rememberedAll()].filter(([dist, release]) => release !== installedOf(dist));
    if (!picked.length) return;
    const box = document.createElement("div");
    box.className = "il-release-banner";
    box.setAttribute("role", "status");
    for (const [dist, release] of picked) {
      const line = document.createElement("p");
      line.dataset.ilDist = dist;
      const installed = installedOf(dist);
      line.append(`Showing notes against ${dist} ${release}, the release you picked` + (installed ? ` (installed: ${installed}). ` : ". "));
      const reset = document.createElement("button");
      reset.type = "button";
      reset.className = "il-release-reset";
      reset.textContent = installed ? `Back to ${installed}` : "Back to the installed release";
      reset.addEventListener("click", () => pick(dist, ""));
      line.append(reset);
      box.append(line);
    }
    const main = document.querySelector("article[role=main]") || document.querySelector("[role=main]") || document.body;
    main.prepend(box);
  }

  function picker(strip) {
    const dist = strip.dataset.ilDist;
    const installed = strip.dataset.ilInstalled || "";
    const label = document.createElement("label");
    label.className = "il-history-pick";
    label.append(`your ${dist}: `);
    const select = document.createElement("select");
    const releases = [...strip.dataset.ilReleases.split(" ")].reverse();
    if (!releases.includes(installed)) select.add(new Option("any release", ""));
    for (const release of releases) select.add(release === installed ? new Option(`${release} (installed)`, "") : new Option(release, release));
    select.addEventListener("change", () => pick(dist, select.value));
    label.append(select);
    const verdict = document.createElement("span");
    verdict.className = "il-history-verdict";
    verdict.setAttribute("aria-live", "polite");
    strip.append(label, verdict);
  }

  // The matrix is wider than the page: open each table scrolled so that the installed release's column shows.
  function showInstalledColumns() {
    for (const wrap of document.querySelectorAll(".il-matrix-wrap")) {
      const head = wrap.querySelector("th.il-installed");
      if (!head) continue;
      const hidden = head.getBoundingClientRect().right - wrap.getBoundingClientRect().right;
      if (hidden > 0) wrap.scrollLeft += hidden + 8;
    }
  }

  function start() {
    const dists = new Set();
    for (const strip of document.querySelectorAll(".infralens-function .il-history[data-il-releases]")) {
      picker(strip);
      dists.add(strip.dataset.ilDist);
    }
    for (const dist of dists) {
      const release = remembered(dist);
      if (release) apply(dist, release);
    }
    banner();
    showInstalledColumns();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
