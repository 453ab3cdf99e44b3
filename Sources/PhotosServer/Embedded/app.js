// The web gallery of `photos serve`: plain ES module, no build step. It speaks only the /v1 API.
// Signing in trades the token for a session of its own: an HttpOnly cookie (the page never keeps a token). Reads
// (images, videos, the feed) carry the cookie; writes carry it with X-Requested-With, which another site's page
// cannot send. Signing out revokes the session.

const $ = (selector) => document.querySelector(selector);
const state = {
  signedIn: false,
  view: "timeline",
  assets: [],        // loaded assets of the current view, in order
  index: new Map(),  // id → position in assets
  cursor: null,      // the next page's cursor, null when everything is loaded
  loading: false,
  generation: 0,     // which listing the loaded pages belong to: a page of an earlier one is dropped when it arrives
  layout: [],        // rows: {top, height, header?, items: [{asset, left, width}]}
  selected: new Set(),
  viewer: null,      // position in assets of the asset shown
  source: null,      // the EventSource of the feed
  deleted: null,     // Recently Deleted's id
  recipe: null,
  rotation: 0,
};
const PAGE = 500;
const GAP = 4;

// MARK: - API

async function api(path, { method = "GET", body, headers = {}, raw = false } = {}) {
  const init = { method, headers: { ...headers }, credentials: "same-origin" };
  if (method !== "GET") init.headers["X-Requested-With"] = "OpenPhotoKit";
  if (body !== undefined) {
    init.body = typeof body === "string" || body instanceof Blob ? body : JSON.stringify(body);
    if (!(body instanceof Blob) && !init.headers["Content-Type"]) init.headers["Content-Type"] = "application/json";
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    serverGone(true);
    throw new Error("the server cannot be reached");
  }
  serverGone(false);
  if (response.status === 401) { showSignIn(); throw new Error("not signed in"); }
  if (!response.ok) {
    let message = response.statusText;
    try { message = (await response.json()).error.message; } catch { /* not JSON */ }
    throw new Error(message);
  }
  if (raw) return response;
  return response.status === 204 ? null : response.json();
}

/// A banner while the server cannot be reached (a fetch failed, or the feed lost its connection), gone once it answers.
function serverGone(gone) {
  const banner = $("#offline");
  if (banner.hidden === !gone) return;
  banner.hidden = !gone;
  document.body.dataset.offline = gone ? "true" : "false";
}

/// A problem the person should see (an action that failed), in the page's alert region.
function showProblem(text) {
  const problem = $("#problem");
  problem.textContent = text;
  problem.hidden = false;
  setTimeout(() => { if (problem.textContent === text) problem.hidden = true; }, 10000);
}

function changes(list) { return api("/v1/changes", { method: "POST", body: { changes: list } }); }

// MARK: - Sign in

function showSignIn() {
  for (const id of ["#grid", "#albums", "#empty", "#sign-out"]) $(id).hidden = true;
  $("#sign-in").hidden = false;
  $("#token").focus();
}

$("#sign-in").addEventListener("submit", async (event) => {
  event.preventDefault();
  const token = $("#token").value.trim();
  const response = await fetch("/v1/session", { method: "POST", headers: { Authorization: `Bearer ${token}` } });
  if (!response.ok) { $("#sign-in-error").textContent = "That token is not valid."; return; }
  $("#token").value = "";
  $("#sign-in").hidden = true;
  start();
});

// MARK: - Views

const views = {
  // Newest first, as every photo app opens.
  timeline: { path: "/v1/assets", query: "sort=-creationDate" },
  favorites: { path: "/v1/assets", query: "sort=-creationDate&predicate=" + encodeURIComponent("favorite == YES") },
  hidden: { path: "/v1/assets", query: "sort=-creationDate&includeHidden=true&predicate=" + encodeURIComponent("hidden == YES") },
};

// What an empty view says: what belongs there and how it gets there.
const emptyText = {
  timeline: "No photos yet. Drop photos and videos anywhere on this page, or choose Upload.",
  favorites: "No favourites yet. Select photos and choose Favourite, or press F in the viewer.",
  hidden: "Nothing is hidden. Hidden photos stay out of the library view until you show them again.",
  deleted: "Recently Deleted is empty. Deleted photos stay here for 30 days before they are removed for good.",
  album: "This album is empty. Select photos in the library and choose Add to album.",
  search: "Nothing matches. Search looks at captions, keywords, file names and dates (2019, 2019-07, july).",
  albums: "No albums yet. Choose New album to make one.",
};

function showEmpty(kind) {
  const empty = $("#empty");
  empty.textContent = emptyText[kind] ?? emptyText.timeline;
  empty.hidden = false;
}

/// Which empty text the current view shows.
function emptyKind() { return state.view.startsWith("album:") ? "album" : state.view; }

function currentSource() {
  if (state.view === "timeline" && state.before) {
    // A jump to a year: the timeline from the end of that year on, older photos below.
    const seconds = state.before.getTime() / 1000 - 978307200; // NSDate's reference date, 2001-01-01
    return { path: "/v1/assets", query: "sort=-creationDate&predicate=" + encodeURIComponent(`creationDate < CAST(${seconds}, "NSDate")`) };
  }
  if (state.view === "deleted") return { path: `/v1/collections/${state.deleted}/assets`, query: "" };
  if (state.view === "search") return { path: "/v1/assets", query: "sort=-creationDate&q=" + encodeURIComponent(state.query ?? "") };
  if (state.view.startsWith("album:")) return { path: `/v1/collections/${state.view.slice(6)}/assets`, query: "includeHidden=true" };
  return views[state.view];
}

async function show(view) {
  if (view === "deleted" && !state.deleted) {
    // Smart albums are counted when listed: fetched only when Recently Deleted is opened, not at start.
    const { collections } = await api("/v1/collections?type=smartAlbum");
    state.deleted = collections.find((album) => album.subtype === 1000000201)?.id;
  }
  if (view !== "timeline") {
    state.before = null;
    if ($("#year").value) $("#year").value = "";
  }
  if (view !== "search" && $("#search").value) { $("#search").value = ""; state.query = ""; }
  state.view = view;
  for (const button of document.querySelectorAll("nav button")) {
    const current = view === button.dataset.view || (view.startsWith("album:") && button.dataset.view === "albums");
    if (current) button.setAttribute("aria-current", "page"); else button.removeAttribute("aria-current");
  }
  clearSelection();
  $("[data-action=recover]").hidden = view !== "deleted";
  $("[data-action=delete]").hidden = view === "deleted";
  if (view === "albums") return showAlbums();
  $("#albums").hidden = true;
  const heading = $("#view-title");
  if (view.startsWith("album:")) {
    heading.textContent = state.albumTitles?.get(view.slice(6)) ?? "Album";
    heading.hidden = false;
  } else if (view === "search") {
    heading.textContent = `Photos matching “${state.query}”`;
    heading.hidden = false;
  } else {
    heading.hidden = true;
  }
  $("#grid").hidden = false;
  // A new listing (another view, or a year of the timeline): pages of the one before that are still on their way
  // are dropped when they arrive, and do not hold this one's first page back.
  state.generation += 1;
  state.loading = false;
  state.assets = [];
  state.index = new Map();
  state.cursor = undefined;
  await loadMore();
}

async function showAlbums() {
  $("#grid").hidden = true;
  $("#empty").hidden = true;
  $("#view-title").hidden = true;
  const container = $("#albums");
  container.hidden = false;
  container.replaceChildren();
  const { collections } = await api("/v1/collections?type=album");
  state.albumTitles = new Map(collections.map((album) => [album.id, album.title ?? "Untitled"]));
  if (session.canManageCollections) {
    const create = document.createElement("button");
    create.type = "button";
    create.className = "album new-album";
    create.textContent = "New album";
    create.addEventListener("click", async () => {
      const title = prompt("Name of the new album")?.trim();
      if (!title) return;
      try {
        await changes([{ op: "createAlbum", title }]);
        await showAlbums();
      } catch (error) { showProblem(`The album could not be made: ${error.message}`); }
    });
    container.append(create);
  }
  for (const album of collections) {
    const button = document.createElement("button");
    button.className = "album";
    button.type = "button";
    const image = document.createElement("img");
    image.alt = "";
    if (album.keyAsset) image.src = `/v1/assets/${album.keyAsset}/image?size=${thumbnailSize(160)}&mode=fill`;
    const title = document.createElement("span");
    title.textContent = `${album.title ?? "Untitled"} · ${album.estimatedAssetCount ?? 0}`;
    button.append(image, title);
    button.addEventListener("click", () => show(`album:${album.id}`));
    container.append(button);
  }
  if (!collections.length) showEmpty("albums");
}

async function loadMore() {
  if (state.loading || state.cursor === null) return;
  const generation = state.generation;
  state.loading = true;
  try {
    const source = currentSource();
    const parts = [source.query, `limit=${PAGE}`];
    if (state.cursor) parts.push(`cursor=${encodeURIComponent(state.cursor)}`);
    const page = await api(`${source.path}?${parts.filter(Boolean).join("&")}`);
    if (generation !== state.generation) return;
    for (const asset of page.assets) {
      state.index.set(asset.id, state.assets.length);
      state.assets.push(asset);
    }
    state.cursor = page.nextCursor;
    if (state.assets.length > 0) $("#empty").hidden = true; else showEmpty(emptyKind());
    relayout();
  } finally {
    if (generation === state.generation) state.loading = false;
  }
}

// MARK: - Justified grid, virtualized: only the rows on screen are in the page.

function thumbnailSize(height) {
  const pixels = height * (window.devicePixelRatio || 1);
  const side = pixels <= 128 ? 128 : pixels <= 256 ? 256 : 512;
  return `${side}x${side}`;
}

function dayOf(asset) {
  if (!asset.creationDate) return "Undated";
  const date = new Date(asset.creationDate);
  return date.toLocaleDateString(undefined, { weekday: "short", year: "numeric", month: "short", day: "numeric" });
}

const HEADER = 30;   // the band above a row in which days start
const DAY_GAP = 14;  // extra space before a day that starts inside a row

/// A dense justified grid: rows run across days (a day with three photos does not leave the rest of the row empty);
/// each day is labelled above its first photo, in the band of the row it starts in.
function relayout() {
  const width = document.documentElement.clientWidth || window.innerWidth;
  const target = width < 600 ? 110 : 180;
  const rows = [];
  let top = 0;
  let day = null;
  let pending = [];
  const gaps = (items) => GAP * (items.length + 1) + DAY_GAP * items.filter((p, i) => i > 0 && p.day).length;
  const flush = (last) => {
    if (!pending.length) return;
    const ratio = pending.reduce((sum, a) => sum + a.ratio, 0);
    const available = width - gaps(pending);
    const height = last && available / ratio > target * 1.3 ? target : available / ratio;
    const labelled = pending.some((p) => p.day);
    const rowTop = top + (labelled ? HEADER : 0);
    let left = GAP;
    const labels = [];
    const items = pending.map(({ asset, ratio: r, day: starts }, index) => {
      if (starts && index > 0) left += DAY_GAP;
      if (starts) labels.push({ text: starts, left, top });
      const item = { asset, left, width: r * height };
      left += r * height + GAP;
      return item;
    });
    // Each label may use the width up to the next one.
    labels.forEach((label, i) => { label.width = (i + 1 < labels.length ? labels[i + 1].left - DAY_GAP : width - GAP) - label.left; });
    rows.push({ top: rowTop, height, items, labels, labelTop: top });
    top = rowTop + height + GAP;
    pending = [];
  };
  for (const asset of state.assets) {
    const assetDay = dayOf(asset);
    const starts = assetDay !== day ? assetDay : null;
    day = assetDay;
    const ratio = asset.pixelWidth && asset.pixelHeight ? Math.min(3, Math.max(0.33, asset.pixelWidth / asset.pixelHeight)) : 1;
    pending.push({ asset, ratio, day: starts });
    const sum = pending.reduce((total, a) => total + a.ratio, 0);
    if (sum * target + gaps(pending) >= width) flush(false);
  }
  flush(true);
  state.layout = rows;
  $("#grid-content").style.height = `${top}px`;
  render();
}

function render() {
  const content = $("#grid-content");
  const gridTop = content.getBoundingClientRect().top + window.scrollY;
  const from = window.scrollY - gridTop - window.innerHeight;
  const to = window.scrollY - gridTop + 2 * window.innerHeight;
  const wanted = new Map();
  for (const row of state.layout) {
    if (row.top + row.height < from || row.labelTop > to) continue;
    for (const label of row.labels) wanted.set(`h:${label.top}:${label.left}:${label.text}`, { label });
    for (const item of row.items) wanted.set(item.asset.id, { row, item });
  }
  // Keep what is still wanted and unchanged (moved into place); make the rest anew.
  for (const child of [...content.children]) {
    const entry = wanted.get(child.dataset.key);
    if (!entry || (entry.item && child.dataset.stamp !== stamp(entry.item.asset))) { child.remove(); continue; }
    if (entry.item) place(child, entry.row, entry.item);
    wanted.delete(child.dataset.key);
  }
  for (const [key, entry] of wanted) {
    if (entry.label) {
      const header = document.createElement("h2");
      header.className = "header";
      header.dataset.key = key;
      const { label } = entry;
      header.style.cssText = `top:${label.top + 7}px;left:${label.left}px;max-width:${Math.max(0, label.width)}px;margin:0;font-size:14px`;
      header.textContent = label.text;
      header.title = label.text;
      content.append(header);
      continue;
    }
    content.append(tile(entry.item.asset, key, entry.row, entry.item));
  }
  // The first grid on screen: when it is painted (the benchmark of first paint reads this).
  if (!document.body.dataset.firstPaint && content.querySelector(".tile")) {
    requestAnimationFrame(() => requestAnimationFrame(() => { document.body.dataset.firstPaint = String(Math.round(performance.now())); }));
  }
  // Near the end of what is loaded: the next page.
  const last = state.layout[state.layout.length - 1];
  if (last && last.top < to + window.innerHeight) loadMore();
}

/// What a tile shows of its asset: a tile is made again when this changes.
function stamp(asset) { return `${asset.isFavorite}|${asset.adjustmentTimestamp ?? ""}|${asset.isHidden}|${asset.rating}`; }

function place(element, row, item) {
  element.style.cssText = `top:${row.top}px;left:${item.left}px;width:${item.width}px;height:${row.height}px`;
}

function tile(asset, key, row, item) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "tile";
  button.dataset.key = key;
  button.dataset.stamp = stamp(asset);
  button.setAttribute("aria-pressed", state.selected.has(asset.id) ? "true" : "false");
  place(button, row, item);
  const when = asset.creationDate ? new Date(asset.creationDate).toLocaleString() : "undated";
  const burst = asset.burstIdentifier && asset.representsBurst ? ", burst" : "";
  const rated = asset.rating > 0 ? `, ${asset.rating} star${asset.rating > 1 ? "s" : ""}` : "";
  button.setAttribute("aria-label", `${asset.mediaType === "video" ? "Video" : "Photo"}, ${when}${asset.isFavorite ? ", favourite" : ""}${rated}${burst}`);
  const image = document.createElement("img");
  image.alt = "";
  image.loading = "lazy";
  image.decoding = "async";
  image.src = `/v1/assets/${asset.id}/image?size=${thumbnailSize(row.height)}&mode=fill${cacheKey(asset)}`;
  button.append(image);
  if (asset.mediaType === "video" || asset.mediaSubtypes.includes("photoLive")) {
    const badge = document.createElement("span");
    badge.className = "badge";
    badge.textContent = asset.mediaType === "video" ? formatDuration(asset.duration) : "LIVE";
    button.append(badge);
  }
  if (asset.rating > 0) {
    const stars = document.createElement("span");
    stars.className = "stars";
    stars.textContent = "★".repeat(asset.rating);
    button.append(stars);
  }
  if (asset.burstIdentifier && asset.representsBurst) {
    // A burst is one tile, its representative: the viewer steps through the rest.
    const stack = document.createElement("span");
    stack.className = "stack";
    stack.textContent = "▣ Burst";
    button.append(stack);
  }
  if (asset.isFavorite) {
    const heart = document.createElement("span");
    heart.className = "heart";
    heart.textContent = "♥";
    button.append(heart);
  }
  button.addEventListener("click", (event) => {
    if (event.shiftKey || event.metaKey || event.ctrlKey || state.selected.size) toggleSelection(asset.id);
    else openViewer(state.index.get(asset.id));
  });
  button.addEventListener("keydown", (event) => {
    if (event.key === " ") { event.preventDefault(); toggleSelection(asset.id); }
  });
  return button;
}

/// Images are cached as immutable: an edit (or a revert) must change their URL.
function cacheKey(asset) {
  // Images are immutable under their URL: a new edit, or the RAW of a pair shown instead, is another URL.
  return (asset.adjustmentTimestamp ? `&v=${Date.parse(asset.adjustmentTimestamp)}` : "")
    + (asset.originalResourceChoice === "raw" ? "&o=raw" : "");
}

function formatDuration(seconds) {
  const s = Math.round(seconds || 0);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

let frame = 0;
window.addEventListener("scroll", () => { cancelAnimationFrame(frame); frame = requestAnimationFrame(render); }, { passive: true });
window.addEventListener("resize", () => { cancelAnimationFrame(frame); frame = requestAnimationFrame(relayout); });

// MARK: - Selection

function toggleSelection(id) {
  if (state.selected.has(id)) state.selected.delete(id); else state.selected.add(id);
  updateSelection();
}

function clearSelection() { state.selected.clear(); updateSelection(); }

function updateSelection() {
  $("#selection-bar").hidden = state.selected.size === 0;
  $("#selection-count").textContent = `${state.selected.size} selected`;
  for (const child of $("#grid-content").children) {
    if (child.classList.contains("tile")) child.setAttribute("aria-pressed", state.selected.has(child.dataset.key) ? "true" : "false");
  }
}

$("#selection-bar").addEventListener("click", async (event) => {
  const action = event.target.dataset.action;
  if (!action) return;
  const ids = [...state.selected];
  try {
    if (action === "clear") return clearSelection();
    if (action === "favorite") await changes(ids.map((asset) => ({ op: "updateAsset", asset, isFavorite: true })));
    if (action === "hide") await changes(ids.map((asset) => ({ op: "updateAsset", asset, isHidden: true })));
    if (action === "delete") await changes([{ op: "deleteAssets", assets: ids }]);
    if (action === "recover") await changes([{ op: "recoverAssets", assets: ids }]);
    if (action === "album") {
      const { collections } = await api("/v1/collections?type=album");
      const names = collections.map((album) => album.title).join(", ");
      const title = prompt(`Album name (existing: ${names || "none"}; a new name makes a new album)`);
      if (!title) return;
      const existing = collections.find((album) => album.title === title);
      await changes([existing ? { op: "addToAlbum", album: existing.id, assets: ids } : { op: "createAlbum", title, assets: ids }]);
    }
    clearSelection();
  } catch (error) {
    alert(error.message);
  }
});

// MARK: - Viewer

function openViewer(position) {
  if (position === undefined) return;
  state.viewer = position;
  $("#viewer").hidden = false;
  $("#editor").hidden = true;
  showAsset();
  $("[data-viewer=close]").focus();
}

function closeViewer() {
  cancelPreviews();
  if (state.cropping) setCropping(false);
  $("#editor").hidden = true;
  $("#viewer").hidden = true;
  $("#stage").replaceChildren();
  const asset = state.assets[state.viewer];
  state.viewer = null;
  document.querySelector(`.tile[data-key="${asset?.id}"]`)?.focus();
}

// The movie a browser plays: the asset's own, or its web rendering where browsers cannot play that (HEVC).
function videoURL(asset) { return `/v1/assets/${asset.id}/video`; }

async function showAsset() {
  const asset = state.assets[state.viewer];
  if (!asset) return closeViewer();
  const stage = $("#stage");
  stage.classList.remove("zoomed");
  $("[data-viewer=zoom]").setAttribute("aria-pressed", "false");
  $("[data-viewer=favorite]").setAttribute("aria-pressed", String(asset.isFavorite));
  $("[data-viewer=favorite]").textContent = asset.isFavorite ? "♥" : "♡";
  showRating(asset);
  stage.replaceChildren();
  if (asset.mediaType === "video") {
    const video = document.createElement("video");
    video.controls = true;
    video.autoplay = true;
    video.src = videoURL(asset);
    video.setAttribute("aria-label", "Video");
    stage.append(video);
  } else {
    const size = Math.ceil(Math.max(stage.clientWidth, stage.clientHeight, 512) * (window.devicePixelRatio || 1));
    const image = document.createElement("img");
    image.alt = asset.creationDate ? `Photo from ${new Date(asset.creationDate).toLocaleString()}` : "Photo";
    image.src = `/v1/assets/${asset.id}/image?size=${Math.min(size, 4096)}x${Math.min(size, 4096)}&mode=fit${cacheKey(asset)}`;
    stage.append(image);
    if (asset.mediaSubtypes.includes("photoLive")) {
      const badge = document.createElement("span");
      badge.className = "live";
      badge.textContent = "LIVE — hover or press to play";
      const video = document.createElement("video");
      video.muted = true;
      video.playsInline = true;
      video.hidden = true;
      video.className = "live-video";
      video.src = videoURL(asset);
      const play = () => { video.hidden = false; image.hidden = true; video.currentTime = 0; video.play(); };
      const stop = () => { video.pause(); video.hidden = true; image.hidden = false; };
      for (const target of [image, badge]) {
        target.addEventListener("pointerenter", play);
        target.addEventListener("pointerdown", play);
      }
      video.addEventListener("pointerleave", stop);
      video.addEventListener("ended", stop);
      stage.append(video, badge);
    }
  }
  if (!$("#info").hidden) showInfo();
}

// Answers about the asset on screen arrive out of order (a refresh the change feed started before a change of this
// page can answer after it): each request is numbered when it starts, and an answer older than one already shown
// is dropped — the keywords list never steps back to what it was.
let describeSequence = 0;
let describeShown = 0;

async function showInfo() {
  const asset = state.assets[state.viewer];
  const sequence = ++describeSequence;
  const details = await api(`/v1/assets/${asset.id}`);
  if (sequence < describeShown || state.assets[state.viewer]?.id !== asset.id) return;
  describeShown = sequence;
  const list = document.createElement("dl");
  const add = (term, value) => {
    if (value === undefined || value === null || value === "") return;
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    dd.textContent = value;
    list.append(dt, dd);
  };
  if (details.creationDate) {
    const offset = details.creationTimeZoneOffset;
    const local = offset === undefined || offset === null
      ? new Date(details.creationDate).toLocaleString()
      : new Date(Date.parse(details.creationDate) + offset * 1000).toISOString().replace("T", " ").slice(0, 19)
        + ` UTC${offset >= 0 ? "+" : "−"}${String(Math.floor(Math.abs(offset) / 3600)).padStart(2, "0")}:${String(Math.floor(Math.abs(offset) % 3600 / 60)).padStart(2, "0")}`;
    add("Taken", local);
  }
  if (details.location) add("Place", `${details.location.latitude.toFixed(5)}, ${details.location.longitude.toFixed(5)}`);
  add("Size", `${details.pixelWidth} × ${details.pixelHeight}`);
  for (const resource of details.resources ?? []) {
    add(resource.type, `${resource.originalFilename} — ${(resource.fileSize / 1e6).toFixed(1)} MB`);
  }
  if (details.hasAdjustments) add("Edited with", details.adjustmentFormatIdentifier);
  if (details.originalResourceChoice) {
    add("Original", details.originalResourceChoice === "raw" ? "the RAW of a RAW + JPEG pair" : "the JPEG of a RAW + JPEG pair");
  }
  if (details.burstIdentifier) {
    const burst = await api("/v1/assets?includeAllBurstAssets=true&limit=1000&predicate=" + encodeURIComponent(`burstIdentifier == "${details.burstIdentifier}"`));
    add("Burst", `${burst.assets.length} photos (Shift+arrows step through them)`);
  }
  $("#details").replaceChildren(list);
  if (details.originalResourceChoice && !details.hasAdjustments) {
    // The pair's other original, shown instead (PhotoKit's revertAssetContent(to:): offered on an unedited asset,
    // as it reverts edits).
    const other = details.originalResourceChoice === "raw" ? "compressed" : "raw";
    const toggle = document.createElement("button");
    toggle.type = "button";
    toggle.id = "original-choice";
    toggle.textContent = other === "raw" ? "Show the RAW" : "Show the JPEG";
    toggle.addEventListener("click", async () => {
      try {
        await describe({ originalResourceChoice: other });
        showAsset();
      } catch (error) { showProblem(error.message); }
    });
    $("#details").append(toggle);
  }
  showDescription(details);
}

// MARK: - Rating, caption, keywords

function showRating(asset) {
  for (const button of document.querySelectorAll("#rating button")) {
    const stars = Number(button.dataset.rating);
    button.classList.toggle("on", stars <= asset.rating);
    button.setAttribute("aria-pressed", String(stars === asset.rating));
  }
}

function showDescription(asset) {
  const caption = $("#caption");
  if (document.activeElement !== caption) caption.value = asset.caption ?? "";
  caption.dataset.saved = asset.caption ?? "";
  const list = $("#keywords");
  // Rebuilt only when the keywords differ: the feed shows every change again, and a list rebuilt under the pointer
  // would lose the click on its × (the button pressed would no longer be in the page).
  const shown = JSON.stringify(asset.keywords ?? []);
  if (list.dataset.shown === shown) return;
  list.dataset.shown = shown;
  list.replaceChildren(...(asset.keywords ?? []).map((keyword) => {
    const item = document.createElement("li");
    item.append(keyword);
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "×";
    remove.dataset.keyword = keyword;
    remove.setAttribute("aria-label", `Remove keyword ${keyword}`);
    item.append(remove);
    return item;
  }));
}

/// Changes the asset on screen through PATCH (its answer is the asset as it now is), and shows it at once; the
/// change feed brings the same to every other page.
async function describe(fields) {
  const asset = state.assets[state.viewer];
  if (!asset) return;
  const sequence = ++describeSequence;
  const changed = await api(`/v1/assets/${asset.id}`, { method: "PATCH", body: fields });
  const position = state.index.get(asset.id);
  if (position !== undefined) state.assets[position] = { ...state.assets[position], ...changed };
  if (sequence < describeShown) return;
  describeShown = sequence;
  showRating(changed);
  showDescription(changed);
  relayout();
}

async function rate(stars) {
  const asset = state.assets[state.viewer];
  if (!asset) return;
  // Pressing the stars an asset has clears them, as in Photos and Lightroom.
  try { await describe({ rating: asset.rating === stars ? 0 : stars }); } catch (error) { showProblem(error.message); }
}

$("#rating").addEventListener("click", (event) => {
  const stars = Number(event.target.dataset.rating);
  if (stars) rate(stars);
});

async function saveCaption() {
  const caption = $("#caption");
  if (caption.value === caption.dataset.saved) return;
  try { await describe({ caption: caption.value.trim() ? caption.value : null }); } catch (error) { showProblem(error.message); }
}

$("#caption").addEventListener("change", saveCaption);
$("#caption").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); saveCaption(); }
  if (event.key === "Escape") { event.stopPropagation(); event.target.value = event.target.dataset.saved ?? ""; event.target.blur(); }
});
$("#keyword").addEventListener("keydown", async (event) => {
  if (event.key !== "Enter") return;
  event.preventDefault();
  const keyword = event.target.value.trim();
  if (!keyword) return;
  // Cleared at once, not when the server answers: what is typed meanwhile is the next keyword, not more of this one.
  event.target.value = "";
  try {
    await describe({ addKeywords: [keyword] });
  } catch (error) {
    if (!event.target.value) event.target.value = keyword;
    showProblem(error.message);
  }
});
$("#keywords").addEventListener("click", async (event) => {
  const keyword = event.target.dataset.keyword;
  if (!keyword) return;
  try {
    await describe({ removeKeywords: [keyword] });
    $("#keyword").focus();
  } catch (error) { showProblem(error.message); }
});
$("#describe").addEventListener("submit", (event) => event.preventDefault());

// MARK: - Search

let searchTimer = null;
$("#search").addEventListener("input", (event) => {
  clearTimeout(searchTimer);
  // Once typing pauses: every word must match, the last one as begun.
  searchTimer = setTimeout(() => {
    const query = event.target.value.trim();
    if (query === (state.query ?? "") && state.view === "search") return;
    state.query = query;
    window.scrollTo(0, 0);
    show(query ? "search" : "timeline");
  }, 250);
});
$("#search").addEventListener("keydown", (event) => {
  if (event.key === "Escape" && event.target.value) { event.target.value = ""; event.target.dispatchEvent(new Event("input")); }
});

$("#viewer").addEventListener("click", async (event) => {
  const action = event.target.dataset.viewer;
  const asset = state.assets[state.viewer];
  if (!action || !asset) return;
  try {
    if (action === "close") closeViewer();
    if (action === "previous") move(-1);
    if (action === "next") move(1);
    if (action === "favorite") await changes([{ op: "updateAsset", asset: asset.id, isFavorite: !asset.isFavorite }]);
    if (action === "delete") { await changes([{ op: "deleteAssets", assets: [asset.id] }]); }
    if (action === "zoom") {
      const zoomed = $("#stage").classList.toggle("zoomed");
      event.target.setAttribute("aria-pressed", String(zoomed));
      const image = $("#stage img");
      if (zoomed && image) image.src = `/v1/assets/${asset.id}/image?size=${asset.pixelWidth}x${asset.pixelHeight}&mode=fit${cacheKey(asset)}`;
    }
    if (action === "info") {
      $("#info").hidden = !$("#info").hidden;
      event.target.setAttribute("aria-pressed", String(!$("#info").hidden));
      if (!$("#info").hidden) await showInfo();
    }
    if (action === "edit") await openEditor(asset);
  } catch (error) {
    alert(error.message);
  }
});

/// Steps through the photos of the burst on screen (the timeline shows a burst as its representative): the member
/// is shown in place of the representative until the viewer moves on.
async function moveInBurst(step) {
  const asset = state.assets[state.viewer];
  if (!asset?.burstIdentifier) return;
  const { assets } = await api("/v1/assets?includeAllBurstAssets=true&includeHidden=true&sort=creationDate&limit=1000&predicate="
    + encodeURIComponent(`burstIdentifier == "${asset.burstIdentifier}"`));
  const at = assets.findIndex((member) => member.id === (state.burstShown ?? asset.id));
  const next = assets[at + step];
  if (!next) return;
  state.burstShown = next.id;
  const image = $("#stage img");
  if (image) {
    image.src = `/v1/assets/${next.id}/image?size=2048x2048&mode=fit${cacheKey(next)}`;
    image.alt = `Burst photo ${at + step + 1} of ${assets.length}`;
  }
}

function move(step) {
  state.burstShown = null;
  const next = state.viewer + step;
  if (next < 0 || next >= state.assets.length) return;
  state.viewer = next;
  cancelPreviews();
  if (state.cropping) setCropping(false);
  $("#editor").hidden = true;
  showAsset();
  if (next > state.assets.length - 20) loadMore();
}

document.addEventListener("keydown", (event) => {
  if ($("#viewer").hidden || event.defaultPrevented) return;
  // In the editor, Escape cancels the edit (the next Escape closes the viewer); other keys belong to its controls.
  if (event.target.closest?.("#editor, #crop-box")) {
    if (event.key === "Escape" && !$("#editor").hidden) $("[data-edit=cancel]").click();
    return;
  }
  // Typing a caption or a keyword is typing, not commands.
  if (event.target.closest?.("#describe")) return;
  if (event.key === "Escape") closeViewer();
  if (event.key === "ArrowLeft") (event.shiftKey ? moveInBurst(-1) : move(-1));
  if (event.key === "ArrowRight") (event.shiftKey ? moveInBurst(1) : move(1));
  if (event.key === "f") $("[data-viewer=favorite]").click();
  if (/^[0-5]$/.test(event.key) && !event.ctrlKey && !event.metaKey && !event.altKey) {
    const asset = state.assets[state.viewer];
    if (asset) describe({ rating: Number(event.key) }).catch((error) => showProblem(error.message));
  }
});

// MARK: - Editor (the built-in recipe: previewed on the server, saved as a non-destructive edit)

async function openEditor(asset) {
  if (asset.mediaType !== "image") { alert("Only photos can be edited here."); return; }
  const edit = await api(`/v1/assets/${asset.id}/edit`);
  state.recipe = edit;
  const form = $("#editor");
  form.reset();
  state.rotation = 0;
  state.flip = false;
  state.crop = null;
  const sliders = { exposure: "ev", contrast: "_0", saturation: "_0", vibrance: "_0", warmth: "_0", tint: "_0", highlights: "_0", shadows: "_0", vignette: "intensity", straighten: "degrees" };
  for (const step of edit.recipe?.steps ?? []) {
    const [kind, value] = Object.entries(step)[0];
    if (kind in sliders) form[kind].value = value[sliders[kind]];
    if (kind === "look") form.look.value = value._0;
    if (kind === "rotate") state.rotation = value.quarterTurns;
    if (kind === "flip") state.flip = true;
    if (kind === "crop") state.crop = { x: value.x, y: value.y, width: value.width, height: value.height };
  }
  $("[data-edit=flip]").setAttribute("aria-pressed", String(state.flip));
  setCropping(false);
  form.hidden = false;
  $("#info").hidden = true;
  form.exposure.focus();
}

// The recipe the form describes: every step the built-in editor knows (what it reopened is kept, not dropped). While
// cropping, the preview leaves out the geometry: a crop is chosen on the upright original, where its unit square is.
function recipeFromForm({ geometry = true } = {}) {
  const form = $("#editor");
  const steps = [];
  const number = (name) => Number(form[name].value);
  if (geometry) {
    const crop = state.crop;
    if (crop && !(crop.x <= 0 && crop.y <= 0 && crop.width >= 1 && crop.height >= 1)) steps.push({ crop });
    if (state.rotation) steps.push({ rotate: { quarterTurns: state.rotation } });
    if (state.flip) steps.push({ flip: {} });
    if (number("straighten")) steps.push({ straighten: { degrees: number("straighten") } });
  }
  if (number("exposure")) steps.push({ exposure: { ev: number("exposure") } });
  if (number("contrast") !== 1) steps.push({ contrast: { _0: number("contrast") } });
  if (number("saturation") !== 1) steps.push({ saturation: { _0: number("saturation") } });
  for (const name of ["vibrance", "warmth", "tint", "highlights", "shadows"]) {
    if (number(name)) steps.push({ [name]: { _0: number(name) } });
  }
  if (form.look.value) steps.push({ look: { _0: form.look.value } });
  if (number("vignette")) steps.push({ vignette: { intensity: number("vignette") } });
  return { steps };
}

let previewTimer = 0;
let previewURL = null;
let previewGeneration = 0;
// A preview that arrives after the editor closed (saved, cancelled, another photo) is dropped.
function cancelPreviews() {
  clearTimeout(previewTimer);
  previewGeneration += 1;
}
function schedulePreview() {
  clearTimeout(previewTimer);
  const generation = previewGeneration;
  previewTimer = setTimeout(async () => {
    const asset = state.assets[state.viewer];
    if (!asset || generation !== previewGeneration) return;
    const stage = $("#stage");
    const size = Math.min(1600, Math.ceil(Math.max(stage.clientWidth, stage.clientHeight) * (window.devicePixelRatio || 1)));
    const recipe = recipeFromForm({ geometry: !state.cropping });
    const response = await api(`/v1/assets/${asset.id}/edit/preview?size=${size}x${size}`, { method: "POST", body: recipe, raw: true });
    const blob = await response.blob();
    if (generation !== previewGeneration) return;
    if (previewURL) URL.revokeObjectURL(previewURL);
    previewURL = URL.createObjectURL(blob);
    const image = $("#stage img");
    if (image) {
      image.onload = placeCropBox;
      image.src = previewURL;
    }
  }, 150);
}

// MARK: Crop: a box with eight handles over the upright original, dragged with a pointer or moved with the arrow
// keys (a handle moves its edges, the box moves whole; Shift moves ten times as far). Kept in the unit square.

const minimumCrop = 0.05;
const cropLabels = { nw: "top left corner", n: "top edge", ne: "top right corner", e: "right edge", se: "bottom right corner", s: "bottom edge", sw: "bottom left corner", w: "left edge" };

function setCropping(on) {
  state.cropping = on;
  const button = $("[data-edit=crop]");
  button.setAttribute("aria-pressed", String(on));
  button.textContent = on ? "Done cropping" : "Crop";
  const stage = $("#stage");
  stage.classList.toggle("cropping", on);
  $("#crop-box")?.remove();
  fitImageForCropping();
  if (!on) return;
  if (!state.crop) state.crop = { x: 0, y: 0, width: 1, height: 1 };
  const box = document.createElement("div");
  box.id = "crop-box";
  box.className = "crop-box";
  box.tabIndex = 0;
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", "Crop area (arrow keys move it)");
  for (const [handle, label] of Object.entries(cropLabels)) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "handle";
    button.dataset.handle = handle;
    button.setAttribute("aria-label", `Crop ${label} (arrow keys move it)`);
    box.append(button);
  }
  box.addEventListener("pointerdown", startCropDrag);
  box.addEventListener("keydown", cropKey);
  stage.append(box);
  placeCropBox();
}

// The image's displayed rectangle, in the stage's coordinates.
function imageFrame() {
  const stage = $("#stage");
  const image = $("#stage img");
  if (!image) return null;
  const s = stage.getBoundingClientRect();
  const r = image.getBoundingClientRect();
  return { left: r.left - s.left + stage.scrollLeft, top: r.top - s.top + stage.scrollTop, width: r.width, height: r.height };
}

// While cropping, the picture fills the stage whatever its size (with room for the handles around it).
function fitImageForCropping() {
  const image = $("#stage img");
  const stage = $("#stage");
  if (!image) return;
  if (!state.cropping || !image.naturalWidth) { image.style.width = image.style.height = ""; return; }
  const scale = Math.min((stage.clientWidth - 48) / image.naturalWidth, (stage.clientHeight - 48) / image.naturalHeight);
  image.style.width = `${Math.max(1, image.naturalWidth * scale)}px`;
  image.style.height = `${Math.max(1, image.naturalHeight * scale)}px`;
}

function placeCropBox() {
  fitImageForCropping();
  const box = $("#crop-box");
  const frame = imageFrame();
  if (!box || !frame || !state.crop) return;
  const c = state.crop;
  Object.assign(box.style, {
    left: `${frame.left + c.x * frame.width}px`, top: `${frame.top + c.y * frame.height}px`,
    width: `${c.width * frame.width}px`, height: `${c.height * frame.height}px`,
  });
}

// Moves the edges a handle names (or the whole box) by dx, dy in the unit square, from the crop `from`.
function movedCrop(from, handle, dx, dy) {
  let left = from.x, top = from.y, right = from.x + from.width, bottom = from.y + from.height;
  if (!handle) {
    dx = Math.min(Math.max(dx, -left), 1 - right);
    dy = Math.min(Math.max(dy, -top), 1 - bottom);
    return { x: left + dx, y: top + dy, width: from.width, height: from.height };
  }
  if (handle.includes("w")) left = Math.min(Math.max(0, left + dx), right - minimumCrop);
  if (handle.includes("e")) right = Math.max(Math.min(1, right + dx), left + minimumCrop);
  if (handle.includes("n")) top = Math.min(Math.max(0, top + dy), bottom - minimumCrop);
  if (handle.includes("s")) bottom = Math.max(Math.min(1, bottom + dy), top + minimumCrop);
  const round = (v) => Math.round(v * 10000) / 10000;
  return { x: round(left), y: round(top), width: round(right - left), height: round(bottom - top) };
}

function startCropDrag(event) {
  const frame = imageFrame();
  if (!frame) return;
  event.preventDefault();
  const handle = event.target.dataset?.handle ?? null;
  const from = { ...state.crop };
  const start = { x: event.clientX, y: event.clientY };
  const target = event.currentTarget;
  target.setPointerCapture?.(event.pointerId);
  const move = (e) => {
    state.crop = movedCrop(from, handle, (e.clientX - start.x) / frame.width, (e.clientY - start.y) / frame.height);
    placeCropBox();
  };
  const end = () => {
    target.removeEventListener("pointermove", move);
    target.removeEventListener("pointerup", end);
    target.removeEventListener("pointercancel", end);
  };
  target.addEventListener("pointermove", move);
  target.addEventListener("pointerup", end);
  target.addEventListener("pointercancel", end);
}

function cropKey(event) {
  const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[event.key];
  if (!steps) return;
  event.preventDefault();
  const amount = event.shiftKey ? 0.1 : 0.01;
  state.crop = movedCrop(state.crop, event.target.dataset?.handle ?? null, steps[0] * amount, steps[1] * amount);
  placeCropBox();
}

window.addEventListener("resize", placeCropBox);

$("#editor").addEventListener("input", schedulePreview);
$("#editor").addEventListener("click", async (event) => {
  const action = event.target.dataset.edit;
  const asset = state.assets[state.viewer];
  if (!action) return;
  if (action === "crop") { setCropping(!state.cropping); schedulePreview(); }
  if (action === "uncrop") { state.crop = null; setCropping(false); schedulePreview(); }
  if (action === "rotate") { state.rotation = (state.rotation + 1) % 4; schedulePreview(); }
  if (action === "flip") {
    state.flip = !state.flip;
    event.target.setAttribute("aria-pressed", String(state.flip));
    schedulePreview();
  }
  if (action === "cancel") { cancelPreviews(); setCropping(false); hideEditor(); showAsset(); }
  if (action === "revert") {
    try {
      await api(`/v1/assets/${asset.id}/edit`, { method: "DELETE", headers: { "If-Match": `"${state.recipe.version}"` } });
      await closeEditorShowingSaved(asset);
    } catch (error) { $("#edit-error").textContent = error.message; }
  }
});
// Hiding the editor gives the focus back to the button that opened it: left on a hidden control, the focus (and
// with it Escape and the arrow keys) would stay inside the closed editor until the browser moves it on its own.
function hideEditor() {
  const hadFocus = $("#editor").contains(document.activeElement);
  $("#editor").hidden = true;
  if (hadFocus) $("[data-viewer=edit]").focus();
}

// After a save or a revert the viewer shows the asset as it now is (the feed's event may have come while the editor
// was still open, when it leaves the stage alone).
async function closeEditorShowingSaved(asset) {
  cancelPreviews();
  setCropping(false);
  hideEditor();
  const position = state.index.get(asset.id);
  try {
    const saved = await api(`/v1/assets/${asset.id}`);
    if (position !== undefined && state.assets[position]?.id === asset.id) state.assets[position] = saved;
  } catch { /* the feed will say what became of it */ }
  if (state.viewer !== null && state.assets[state.viewer]?.id === asset.id) showAsset();
}

$("#editor").addEventListener("submit", async (event) => {
  event.preventDefault();
  const asset = state.assets[state.viewer];
  try {
    await api(`/v1/assets/${asset.id}/edit`, { method: "PUT", body: recipeFromForm(), headers: { "If-Match": `"${state.recipe.version}"` } });
    await closeEditorShowingSaved(asset);
    $("#edit-error").textContent = "";
  } catch (error) { $("#edit-error").textContent = error.message; }
});

// MARK: - Upload (drag and drop or the button; per-file progress)

function uploadFile(file, row) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", `/v1/uploads?filename=${encodeURIComponent(file.name)}`);
    request.setRequestHeader("X-Requested-With", "OpenPhotoKit");
    request.upload.onprogress = (event) => { if (event.lengthComputable) row.value = event.loaded / event.total; };
    request.onload = () => {
      if (request.status === 201) return resolve(JSON.parse(request.responseText).upload);
      let reason = request.statusText || `HTTP ${request.status}`;
      try { reason = JSON.parse(request.responseText).error.message; } catch { /* not JSON */ }
      reject(new Error(reason));
    };
    request.onerror = () => reject(new Error("network error"));
    request.send(file);
  });
}

async function upload(files) {
  const panel = $("#uploads");
  panel.hidden = false;
  panel.replaceChildren();
  const ids = [];
  const names = new Map();   // upload id → file name
  for (const file of files) {
    const label = document.createElement("label");
    label.textContent = file.name;
    const progress = document.createElement("progress");
    progress.max = 1;
    progress.value = 0;
    label.append(progress);
    panel.append(label);
    try {
      const id = await uploadFile(file, progress);
      ids.push(id);
      names.set(id, file.name);
    } catch (error) {
      label.classList.add("refused");
      label.append(` — not sent: ${error.message}`);
    }
  }
  if (!ids.length) return;
  let result;
  try {
    const response = await fetch("/v1/assets", {
      method: "POST", credentials: "same-origin", headers: { "X-Requested-With": "OpenPhotoKit", "Content-Type": "application/json" },
      body: JSON.stringify({ uploads: ids }),
    });
    result = await response.json();
    if (result.error) throw new Error(result.error.message);
  } catch (error) {
    showProblem(`The uploads could not be added: ${error.message}`);
    return;
  }
  const summary = document.createElement("p");
  summary.textContent = `${result.created?.length ?? 0} added, ${result.duplicates?.length ?? 0} already in the library, ${result.failures?.length ?? 0} refused`;
  summary.id = "upload-summary";
  panel.append(summary);
  // Each refused file by name, with the library's reason (a damaged file, a format it does not read).
  for (const failure of result.failures ?? []) {
    const line = document.createElement("p");
    line.className = "refused";
    line.textContent = `${names.get(failure.upload) ?? failure.upload}: ${failure.reason}`;
    panel.append(line);
  }
  if (!(result.failures ?? []).length) setTimeout(() => { panel.hidden = true; }, 8000);
}

$("#upload-input").addEventListener("change", (event) => upload([...event.target.files]));
document.addEventListener("dragover", (event) => { event.preventDefault(); document.body.classList.add("dragging"); });
document.addEventListener("dragleave", (event) => { if (!event.relatedTarget) document.body.classList.remove("dragging"); });
document.addEventListener("drop", (event) => {
  event.preventDefault();
  document.body.classList.remove("dragging");
  if (event.dataTransfer.files.length) upload([...event.dataTransfer.files]);
});

// MARK: - Live: the change feed patches what is on screen

async function applyChange(change) {
  const assets = change.assets ?? {};
  for (const id of assets.deleted ?? []) removeAsset(id);
  for (const id of assets.updated ?? []) {
    if (!state.index.has(id)) continue;
    try {
      const asset = await api(`/v1/assets/${id}`);
      if (asset.trashedDate && state.view !== "deleted") { removeAsset(id); continue; }
      const position = state.index.get(id);
      state.assets[position] = asset;
    } catch { removeAsset(id); }
  }
  if ((assets.inserted?.length || assets.updated?.length || change.assetCollections) && !state.view.startsWith("album")) {
    // New assets may belong anywhere in the order (and an update may move one into or out of this view): reload
    // the pages loaded so far, keeping the scroll position.
    await reloadLoaded();
  } else {
    relayout();
  }
  if (state.viewer !== null && !$("#viewer").hidden && $("#editor").hidden) showAsset();
  document.body.dataset.lastChange = change.token;
}

function removeAsset(id) {
  const position = state.index.get(id);
  if (position === undefined) return;
  state.assets.splice(position, 1);
  state.index = new Map(state.assets.map((asset, i) => [asset.id, i]));
  state.selected.delete(id);
  if (state.viewer !== null && state.viewer >= state.assets.length) state.viewer = state.assets.length - 1;
}

async function reloadLoaded() {
  const generation = state.generation;
  const count = Math.max(state.assets.length, PAGE);
  const source = currentSource();
  const fresh = [];
  let cursor;
  do {
    const parts = [source.query, `limit=${Math.min(1000, count - fresh.length)}`];
    if (cursor) parts.push(`cursor=${encodeURIComponent(cursor)}`);
    const page = await api(`${source.path}?${parts.filter(Boolean).join("&")}`);
    // Another listing began meanwhile (the user chose a year or a view): this one's pages are stale.
    if (generation !== state.generation) return;
    fresh.push(...page.assets);
    cursor = page.nextCursor;
  } while (cursor && fresh.length < count);
  const viewing = state.viewer !== null ? state.assets[state.viewer]?.id : null;
  state.assets = fresh;
  state.index = new Map(fresh.map((asset, i) => [asset.id, i]));
  state.cursor = cursor ?? null;
  if (viewing) state.viewer = state.index.get(viewing) ?? Math.min(state.viewer, fresh.length - 1);
  if (fresh.length > 0) $("#empty").hidden = true; else showEmpty(emptyKind());
  relayout();
}

function follow() {
  state.source?.close();
  const source = new EventSource("/v1/changes/stream");
  source.addEventListener("change", (event) => applyChange(JSON.parse(event.data)));
  source.addEventListener("open", () => { document.body.dataset.feed = "open"; serverGone(false); });
  source.addEventListener("error", () => { if (source.readyState !== EventSource.OPEN) serverGone(true); });
  state.source = source;
}

// MARK: - Start

for (const button of document.querySelectorAll("nav button")) button.addEventListener("click", () => show(button.dataset.view));

let session = {};

/// The years between the oldest and the newest photo, to jump to (the newest photos, or a year's last day and what
/// came before it).
async function offerYears() {
  const select = $("#year");
  try {
    const [newest, oldest] = await Promise.all([
      api("/v1/assets?sort=-creationDate&limit=1&predicate=" + encodeURIComponent("creationDate != nil")),
      api("/v1/assets?sort=creationDate&limit=1&predicate=" + encodeURIComponent("creationDate != nil")),
    ]);
    const last = newest.assets[0]?.creationDate, first = oldest.assets[0]?.creationDate;
    if (!last || !first) return;
    const [to, from] = [new Date(last).getFullYear(), new Date(first).getFullYear()];
    if (to === from) return;
    select.replaceChildren(new Option("Newest", ""));
    for (let year = to; year >= from; year--) select.append(new Option(String(year), String(year)));
    select.hidden = false;
  } catch { /* no years to offer */ }
}

$("#year").addEventListener("change", async (event) => {
  const year = Number(event.target.value);
  state.before = year ? new Date(year + 1, 0, 1) : null;
  window.scrollTo(0, 0);
  await show("timeline");
});

// An earlier version kept the token in the page's storage: it goes.
localStorage.removeItem("photos.token");

$("#sign-out").addEventListener("click", async () => {
  try { await api("/v1/session", { method: "DELETE" }); } catch { /* signed out either way */ }
  state.source?.close();
  location.reload();
});

async function start() {
  try { session = await api("/v1/session"); } catch { return; }
  document.body.dataset.client = session.client;
  $("#sign-out").hidden = false;
  if (!session.canRead) {
    // An add-only token (a phone's backup, a drop box): it may add photos but not see the library — say so, and
    // offer what it can do, instead of an empty page.
    document.body.dataset.access = session.canAdd ? "addOnly" : "none";
    document.querySelector("nav").hidden = true;
    $("#search").hidden = true;
    $("#grid").hidden = true;
    const empty = $("#empty");
    empty.textContent = session.canAdd
      ? "This token can add photos and videos to the library, but not see it. Drop files anywhere on this page, or choose Upload."
      : "This token has no access to the library yet. Ask the library's owner to run photos grant for it.";
    empty.hidden = false;
    $(".upload").hidden = !session.canAdd;
    document.body.dataset.ready = "true";
    return;
  }
  await show("timeline");
  await offerYears();
  follow();
  document.body.dataset.ready = "true";
}

start();
