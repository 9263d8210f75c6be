// Release picker: choose the upstream release you have installed, and the notes that do not hold in it are flagged.
//
// Each function header's strip (.il-history) carries its distribution and releases (data-il-dist,
// data-il-releases); each note carries one letter per release (data-il-states: u holds, c changed, m moved,
// d deleted, a not yet present, r unreadable), written from reports/history.json. The choice is remembered
// per distribution (localStorage), so every page opens with the release last picked.
(() => {
  "use strict";
  const WORDS = { u: "holds", c: "changed", m: "moved", d: "deleted", a: "not yet present", r: "unreadable" };
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

  function strips(dist) {
    return [...document.querySelectorAll(".il-history[data-il-releases]")].filter((s) => s.dataset.ilDist === dist);
  }

  function apply(dist, release) {
    const all = strips(dist);
    if (!all.length) return;
    const releases = all[0].dataset.ilReleases.split(" ");
    const at = releases.indexOf(release);
    for (const fn of document.querySelectorAll(".infralens-function")) {
      let stale = 0;
      let notes = 0;
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
            note.querySelector(".il-note-head")?.appendChild(label);
          }
          label.textContent = `${WORDS[letter] || letter} in ${release}`;
        } else if (label) {
          label.remove();
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
        verdict.classList.toggle("il-history-bad", stale > 0);
      }
    }
  }

  function picker(strip) {
    const dist = strip.dataset.ilDist;
    const label = document.createElement("label");
    label.className = "il-history-pick";
    label.append(`your ${dist}: `);
    const select = document.createElement("select");
    select.add(new Option("any release", ""));
    for (const release of [...strip.dataset.ilReleases.split(" ")].reverse()) select.add(new Option(release, release));
    select.addEventListener("change", () => {
      remember(dist, select.value);
      apply(dist, select.value);
    });
    label.append(select);
    const verdict = document.createElement("span");
    verdict.className = "il-history-verdict";
    verdict.setAttribute("aria-live", "polite");
    strip.append(label, verdict);
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
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
