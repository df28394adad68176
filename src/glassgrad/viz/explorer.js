// glassgrad graph explorer: draws the graph computed by glassgrad.viz.explore (positions,
// statistics and diagnoses come from Python in the #graph-data payload, see encode_payload) and handles pan, zoom,
// search, selection, path highlighting, groups and a minimap. No libraries, no network.
//
// Drawing is virtualized on one <canvas>: each frame looks up the nodes and edges inside the
// view (a y-sorted index, binary search) and draws only those, with a level of detail chosen by
// the zoom: boxes with text when text is readable, plain boxes below that, one dot per screen
// pixel when boxes get smaller than a pixel, and, when thousands of nodes are in view, cells of
// a zoom level binned once (a few hundred dots and lines for a whole 100,000-node chain). So a
// frame costs what is on screen, not what is in the graph.
"use strict";
(function () {
  // ---- the payload: gzip + base64 parts the browser inflates --------------------------
  // `core` is JSON (tables, parameters, health...); `columns` is one block of little-endian
  // int32 columns, one per node and edge field (see glassgrad/viz/_payload.py), read as typed
  // arrays without parsing; `details` is JSON and `detailNumbers` its statistics' numbers as
  // another block, both inflated after the first frame.
  function inflated(base64) {
    const binary = atob(base64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")));
  }
  const inflate = async (base64) => JSON.parse(await inflated(base64).text());

  const timings = { start: performance.now() };
  async function readPayload() {
    const raw = JSON.parse(document.getElementById("graph-data").textContent);
    const [data, block] = await Promise.all([inflate(raw.core), inflated(raw.columns).arrayBuffer()]);
    data.nodeColumns = {};
    data.edgeColumns = {};
    for (const [name, column] of Object.entries(typedArrays(block, data.columns))) {
      const [group, field] = name.split(".");
      data[group][field] = column;
    }
    data.nodes = rowViews(data.nodeColumns, data.values, true);
    data.edges = rowViews(data.edgeColumns, data.values, false);
    timings.payload = performance.now() - timings.start;
    // Per-node details (saved tensors, stacks, gradients) are inflated after the first frame.
    data.detailsReady = new Promise((resolve) => setTimeout(resolve, 0))
      .then(() => Promise.all([inflate(raw.details), inflated(raw.detailNumbers).arrayBuffer()]))
      .then(([details, numbers]) => Object.assign(details, { short: typedArrays(numbers, details.short) }));
    return data;
  }
  // A block's arrays by the layout Python wrote: name -> [type, byte offset, length, width].
  const TYPED = { int16: Int16Array, int32: Int32Array, float64: Float64Array };
  function typedArrays(block, layout) {
    const out = {};
    for (const [name, [type, offset, length]] of Object.entries(layout)) out[name] = new TYPED[type](block, offset, length);
    return out;
  }

  // One object per row whose fields read the columns when asked (a 100,000-node page makes
  // 100,000 one-field objects, not 1.5 million properties): positions are tenths of a pixel,
  // indices are numbers, the other columns positions in the table of distinct values (the
  // ABSENT marker: the row has no such field, read as undefined).
  const NUMERIC = new Set(["src", "dst", "slot"]);
  const TENTHS = new Set(["x", "y", "w", "h"]);
  const ABSENT = "\u0000absent";
  function rowViews(columns, table, keyed) {
    function Row(index) { if (keyed) this.key = index; else Object.defineProperty(this, "index", { value: index }); }
    for (const [name, column] of Object.entries(columns)) {
      const get = TENTHS.has(name) ? function () { return column[keyed ? this.key : this.index] / 10; }
        : NUMERIC.has(name) ? function () { return column[keyed ? this.key : this.index]; }
        : function () { const value = table[column[keyed ? this.key : this.index]]; return value === ABSENT ? undefined : value; };
      Object.defineProperty(Row.prototype, name, { get, enumerable: true });
    }
    const length = Object.values(columns)[0]?.length ?? 0;
    const out = new Array(length);
    for (let i = 0; i < length; i++) out[i] = new Row(i);
    return out;
  }

  // Per-node details travel as rows of positions into their own table (the layout is
  // glassgrad/viz/_payload.py's); a node's are expanded the first time its panel is shown.
  const DETAIL_FIELDS = ["inputs", "outputs", "saved", "savedError", "code", "traceback", "variable",
    "backward", "function", "diff", "terms", "requiresGrad", "value", "grad"];
  const SHARED_DETAILS = new Set(["outputs", "savedError", "code", "traceback", "function"]);
  const STAT_NAMES = ["norm", "min", "max", "mean", "num_nan", "num_inf", "num_zero"];
  const MISSING = -1;
  // The short table's numbers are decimals m * 10^(e - 3); some exponents stand for NaN,
  // infinities and "none" (glassgrad/viz/_payload.py's decimal4).
  const SPECIAL = new Map([[32767, "nan"], [32766, "inf"], [32765, "-inf"], [-32768, null]]);
  function shortStats(short, table, position) {
    if (position === null) return null;
    const [shape, dtype, numel] = table[short.meta[position]];
    const out = { shape, dtype, numel };
    STAT_NAMES.slice(0, 4).forEach((name, i) => {
      const m = short.mantissa[position * 4 + i], e = short.exponent[position * 4 + i];
      out[name] = SPECIAL.has(e) ? SPECIAL.get(e) : Number(`${m}e${e - 3}`);
    });
    STAT_NAMES.slice(4).forEach((name, i) => { out[name] = short.counts[position * 3 + i]; });
    return out;
  }
  function expandDetails(row, table, short) {
    const stats = (position) => {
      if (position === null) return null;
      const entry = table[position];
      const [shape, dtype, numel] = table[entry[0]];
      const out = { shape, dtype, numel };
      STAT_NAMES.forEach((name, i) => { out[name] = entry[i + 1]; });
      return out;
    };
    const node = {};
    DETAIL_FIELDS.forEach((name, i) => {
      let value = row[i];
      if (value === MISSING) return;
      if (SHARED_DETAILS.has(name)) value = table[value];
      else if (name === "inputs") value = value.map(([from, meta], slot) => ({ slot, from, meta: table[meta] }));
      else if (name === "saved") value = value.map(([savedName, entry, text]) => ({ name: savedName, stats: shortStats(short, table, entry), value: text }));
      else if (name === "backward" && value !== null) value = { step: value[0], received: value[1].map((e) => shortStats(short, table, e)), sent: value[2].map((e) => shortStats(short, table, e)) };
      else if (name === "value" || name === "grad") value = stats(value);
      node[name] = value;
    });
    return node;
  }

  readPayload().then(start);

  function start(data) {
  const canvas = document.getElementById("canvas");
  const wrap = document.getElementById("canvas-wrap");
  const ctx = canvas.getContext("2d", { alpha: false }); // opaque: composited without blending
  const minimap = document.getElementById("minimap");
  const miniCtx = minimap.getContext("2d");
  const panelBody = document.getElementById("panel-body");
  const searchBox = document.getElementById("search");
  const searchCount = document.getElementById("search-count");

  const nodes = data.nodes;
  const edges = data.edges;
  const count = nodes.length;
  let details = null; // { values, rows } once inflated
  const expanded = new Uint8Array(count);
  function withDetails(key) {
    if (details !== null && !expanded[key]) {
      Object.assign(nodes[key], expandDetails(details.rows[key], details.values, details.short));
      expanded[key] = 1;
    }
    return nodes[key];
  }
  data.detailsReady.then((inflated) => {
    details = inflated;
    if (selectedKey !== null) renderPanel(selectedKey);
    document.body.setAttribute("data-details", "true");
  });

  // Geometry and state as typed arrays: the drawing loop reads nothing else.
  const X = new Float64Array(count), Y = new Float64Array(count);
  const W = new Float32Array(count), H = new Float32Array(count);
  const KIND = new Uint8Array(count);
  const FLAGS = new Uint8Array(count); // NAN_ORIGIN | BAD_GRAD | STALE | APPEARED
  const STATE = new Uint8Array(count); // 0 plain, ON_PATH, DIMMED
  const MATCH = new Uint8Array(count);
  const KINDS = ["op", "output", "param", "leaf", "base", "saved"];
  const NAN_ORIGIN = 1, BAD_GRAD = 2, STALE = 4, APPEARED = 8;
  const ON_PATH = 1, DIMMED = 2;
  // Straight from the columns (no node object is read): per distinct table value, its kind
  // and whether it counts as set.
  const column = data.nodeColumns;
  const KIND_OF = data.values.map((value) => Math.max(0, KINDS.indexOf(value)));
  const SET = Uint8Array.from(data.values, (value) => (value !== ABSENT && !!value ? 1 : 0));
  for (let key = 0; key < count; key++) {
    X[key] = column.x[key] / 10; Y[key] = column.y[key] / 10; W[key] = column.w[key] / 10; H[key] = column.h[key] / 10;
    KIND[key] = KIND_OF[column.kind[key]];
    FLAGS[key] = (SET[column.nanOrigin[key]] ? NAN_ORIGIN : 0) | (SET[column.badGrad[key]] ? BAD_GRAD : 0) | (SET[column.stale[key]] ? STALE : 0) | (SET[column.appeared[key]] ? APPEARED : 0);
  }
  // Edges as flat arrays; adjacency in CSR form (offsets + indices) for path walks.
  const ESRC = data.edgeColumns.src, EDST = data.edgeColumns.dst;
  function csr(from) {
    const offsets = new Int32Array(count + 1);
    for (let i = 0; i < from.length; i++) offsets[from[i] + 1]++;
    for (let k = 0; k < count; k++) offsets[k + 1] += offsets[k];
    const fill = offsets.slice(0, count), items = new Int32Array(from.length);
    for (let i = 0; i < from.length; i++) items[fill[from[i]]++] = i;
    return { offsets, items };
  }
  const OUT = csr(ESRC);
  function edgesOf(adjacency, key) {
    return adjacency.items.subarray(adjacency.offsets[key], adjacency.offsets[key + 1]);
  }
  const paramByNode = new Map();
  data.params.forEach((param) => { if (param.nodeKey !== null) paramByNode.set(param.nodeKey, param); });

  // ---- spatial index: nodes and edges sorted by their top y --------------------------------
  // Rebuilt when nodes move (module boxes opening and closing lay the graph out again).
  const LONG_EDGE = 600;
  // A node feeding many distant nodes (a weight shared by every step of a long chain) is a
  // fan: its long edges sorted by the y of their other end, so a frame draws those ending in
  // view one by one and those passing through as one line per side.
  const FAN_MIN = 64;
  let levels = new Map(); // zoom levels of binned cells (see buildLevel), dropped on changes
  let NODE_ORDER, NODE_TOP, tallest, SHORT_ORDER, SHORT_TOP, LONG_ORDER, fans;
  function buildIndex() {
    const TOP = new Float64Array(count);
    for (let k = 0; k < count; k++) TOP[k] = Y[k] - H[k] / 2;
    NODE_ORDER = sortedBy(TOP, count);
    NODE_TOP = Float64Array.from(NODE_ORDER, (k) => TOP[k]);
    tallest = 0;
    for (let k = 0; k < count; k++) tallest = Math.max(tallest, H[k]);
    // Short edges (most; under LONG_EDGE across and down) are found by binary search on their
    // top; long ones one by one, or by fan.
    const longEdges = [];
    const shortEdge = new Uint8Array(edges.length);
    for (let i = 0; i < edges.length; i++) {
      const span = Math.max(Math.abs(Y[ESRC[i]] - Y[EDST[i]]), Math.abs(X[ESRC[i]] - X[EDST[i]]));
      if (span > LONG_EDGE) longEdges.push(i);
      else shortEdge[i] = 1;
    }
    const ETOP = Float64Array.from(edges, (_, i) => Math.min(Y[ESRC[i]], Y[EDST[i]]));
    SHORT_ORDER = sortedBy(ETOP, edges.length).filter((i) => shortEdge[i]);
    SHORT_TOP = Float64Array.from(SHORT_ORDER, (i) => ETOP[i]);
    const longBySrc = new Map();
    for (const i of longEdges) {
      if (!longBySrc.has(ESRC[i])) longBySrc.set(ESRC[i], []);
      longBySrc.get(ESRC[i]).push(i);
    }
    fans = [];
    const loose = [];
    for (const [src, list] of longBySrc) {
      if (list.length < FAN_MIN) { loose.push(...list); continue; }
      list.sort((a, b) => Y[EDST[a]] - Y[EDST[b]]);
      let minX = Infinity, maxX = -Infinity;
      for (const i of list) { minX = Math.min(minX, X[EDST[i]]); maxX = Math.max(maxX, X[EDST[i]]); }
      fans.push({ src, edges: Int32Array.from(list), dstY: Float64Array.from(list, (i) => Y[EDST[i]]), minX, maxX });
    }
    LONG_ORDER = Int32Array.from(loose);
    invalidateLevels(true);
  }

  // Indices 0..length-1 ordered by key[index]. Keys on a 0.1 px grid and indices are packed
  // into one float and sorted without a comparator (several times faster at 100,000).
  function sortedBy(key, length) {
    let low = Infinity, high = -Infinity;
    for (let i = 0; i < length; i++) { low = Math.min(low, key[i]); high = Math.max(high, key[i]); }
    const order = new Int32Array(length);
    if (length < 2 ** 21 && (high - low) * 10 < 2 ** 31) {
      const packed = new Float64Array(length);
      for (let i = 0; i < length; i++) packed[i] = Math.round((key[i] - low) * 10) * 2 ** 21 + i;
      packed.sort();
      for (let i = 0; i < length; i++) order[i] = packed[i] % 2 ** 21;
    } else {
      for (let i = 0; i < length; i++) order[i] = i;
      order.sort((a, b) => key[a] - key[b]);
    }
    return order;
  }
  buildIndex();

  function lowerBound(sorted, value) {
    let lo = 0, hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid] < value) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  // ---- groups: boxes around node sets; a collapsed group is drawn as one box ---------------
  // data.groups (optional): [{id, label, keys: [node keys], parent: id or null, collapsed}].
  // Other code (module boxes, folded repeats) fills it; setGroups() replaces it at run time.
  let groups = [];
  let REP = new Int32Array(count).fill(-1); // the collapsed group standing for a node, or -1
  function setGroups(list) {
    groups = (list || []).map((group) => {
      if (group.x0 !== undefined) return Object.assign({ collapsed: false, parent: null }, group); // placed by its maker
      let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
      for (const key of group.keys) {
        minX = Math.min(minX, X[key] - W[key] / 2); maxX = Math.max(maxX, X[key] + W[key] / 2);
        minY = Math.min(minY, Y[key] - H[key] / 2); maxY = Math.max(maxY, Y[key] + H[key] / 2);
      }
      const pad = 8;
      return Object.assign({ collapsed: false, parent: null }, group, {
        x0: minX - pad, y0: minY - pad - 14, x1: maxX + pad, y1: maxY + pad,
      });
    });
    groupIndex = new Map(groups.map((group, index) => [group.id, index]));
    updateRepresentatives();
  }
  let groupIndex = new Map();
  function updateRepresentatives() {
    REP = new Int32Array(count).fill(-1);
    invalidateLevels(true);
    // Outermost collapsed group wins: visit groups parents-first.
    const depthOf = (group) => { let d = 0, g = group; while (g.parent !== null && groupIndex.has(g.parent)) { g = groups[groupIndex.get(g.parent)]; d++; } return d; };
    const ordered = groups.map((g, i) => [depthOf(g), i]).sort((a, b) => b[0] - a[0]);
    for (const [, index] of ordered) {
      if (!groups[index].collapsed) continue;
      for (const key of groups[index].keys) REP[key] = index;
    }
    groups.forEach((group, index) => {
      group.hidden = group.parent !== null && groupIndex.has(group.parent) && isInsideCollapsed(index);
    });
    scheduleDraw();
    drawMinimapBase();
  }
  function isInsideCollapsed(index) {
    let group = groups[index];
    while (group.parent !== null && groupIndex.has(group.parent)) {
      group = groups[groupIndex.get(group.parent)];
      if (group.collapsed) return true;
    }
    return false;
  }
  function setCollapsed(id, collapsed) {
    const index = groupIndex.get(id);
    if (index === undefined) return;
    groups[index].collapsed = !!collapsed;
    updateRepresentatives();
  }

  // ---- small DOM helpers -------------------------------------------------------------
  function el(tag, attrs, children) {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (name === "text") element.textContent = value;
      else if (name === "onclick") element.addEventListener("click", value);
      else element.setAttribute(name, value);
    }
    for (const child of children || []) {
      if (child === null || child === undefined) continue;
      element.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return element;
  }

  // A dotted name with a break opportunity after each dot: long names wrap between their
  // parts ("blocks.0.attn." / "weight"), never inside one.
  function breakable(name) {
    const parts = [];
    String(name).split(/(?<=[._])/).forEach((part, index) => {
      if (index) parts.push(document.createElement("wbr"));
      parts.push(part);
    });
    return parts;
  }

  function fmt(value) {
    if (value === null || value === undefined) return "-";
    if (typeof value === "string") return value;
    if (Number.isInteger(value)) return String(value);
    const magnitude = Math.abs(value);
    if (magnitude !== 0 && (magnitude < 1e-3 || magnitude >= 1e5)) return value.toExponential(3);
    return String(Number(value.toPrecision(4)));
  }

  function shapeText(shape) {
    if (!shape) return "?";
    return shape.length === 1 ? "(" + shape[0] + ",)" : "(" + shape.join(", ") + ")";
  }

  function metaText(meta) {
    return meta ? shapeText(meta.shape) + " " + meta.dtype : "-";
  }

  function nodeTitle(key) {
    const node = nodes[key];
    return node.label || node.lines[0];
  }

  function isBadStats(stats) {
    return !!stats && (stats.num_nan > 0 || stats.num_inf > 0);
  }

  // ---- view and drawing ------------------------------------------------------------------
  const view = { scale: 1, x: 0, y: 0 }; // screen = world * scale + (x, y), in CSS px
  const COLORS = {
    kind: ["#e5e7eb", "#caff70", "#add8e6", "#ffffe0", "#a2cd5a", "#ffa500"],
    stroke: "#8a8f98", hot: "#e8590c", bad: "#d00000", select: "#1c64f2", ink: "#1d232a",
    sub: "#4b5563", bg: "#f7f7f5", stale: "#7c3aed", group: "#6366f1", appeared: "#059669",
  };
  const FONT = 'ui-monospace, "DejaVu Sans Mono", monospace';
  const TEXT_MIN_PX = 4; // below this, labels are not drawn (boxes only)
  const DOT_LIMIT = 4000; // more visible nodes than this: one dot per pixel
  const EDGE_LIMIT = 30000; // more visible edges than this: draw only highlighted ones
  let selectedKey = null;
  let drawPending = false;
  const stats = { frames: 0, lastFrameMs: 0, totalFrameMs: 0, visibleNodes: 0, visibleEdges: 0, mode: "" };

  function canvasSize() {
    const box = wrap.getBoundingClientRect();
    return { width: box.width || 800, height: box.height || 600 };
  }

  // While the view moves (wheel, drag, minimap), frames are drawn at half resolution: in
  // Chromium's software path a frame costs mostly per pixel (clearing, rasterizing, handing the
  // canvas to the compositor), so this keeps zoom and pan smooth on a busy machine. Once the
  // view has been still for motion.stillMs it is drawn again at full resolution.
  const MOVING_RATIO = 0.5;
  const motion = { stillMs: 150 }; // api.motion: tests lengthen it on a busy machine
  let stillTimer = null;
  function moving() {
    clearTimeout(stillTimer);
    stillTimer = setTimeout(() => { stillTimer = null; scheduleDraw(); }, motion.stillMs);
  }
  function pixelRatio() {
    return (window.devicePixelRatio || 1) * (stillTimer !== null ? MOVING_RATIO : 1);
  }

  function resizeCanvas() {
    const size = canvasSize();
    const ratio = pixelRatio();
    canvas.width = Math.round(size.width * ratio);
    canvas.height = Math.round(size.height * ratio);
    canvas.style.width = size.width + "px";
    canvas.style.height = size.height + "px";
  }

  function scheduleDraw() {
    if (drawPending) return;
    drawPending = true;
    requestAnimationFrame(() => { drawPending = false; draw(); });
  }

  // The world rectangle on screen.
  function worldView() {
    const size = canvasSize();
    return {
      x0: -view.x / view.scale, y0: -view.y / view.scale,
      x1: (size.width - view.x) / view.scale, y1: (size.height - view.y) / view.scale,
    };
  }

  function visibleNodes(area) {
    const found = [];
    let index = lowerBound(NODE_TOP, area.y0 - tallest);
    for (; index < count && NODE_TOP[index] <= area.y1; index++) {
      const key = NODE_ORDER[index];
      if (REP[key] >= 0) continue;
      if (Y[key] + H[key] / 2 < area.y0 || X[key] + W[key] / 2 < area.x0 || X[key] - W[key] / 2 > area.x1) continue;
      found.push(key);
    }
    return found;
  }

  function edgeVisible(i, area) {
    const a = ESRC[i], b = EDST[i];
    const top = Math.min(Y[a], Y[b]), bottom = Math.max(Y[a], Y[b]);
    const left = Math.min(X[a], X[b]), right = Math.max(X[a], X[b]);
    return bottom >= area.y0 && top <= area.y1 && right >= area.x0 && left <= area.x1;
  }

  function visibleEdges(area) {
    const found = [];
    // Zoomed out so far that a short edge spans less than a pixel: none of them is drawn.
    let index = LONG_EDGE * view.scale < 1 ? SHORT_ORDER.length : lowerBound(SHORT_TOP, area.y0 - LONG_EDGE);
    for (; index < SHORT_ORDER.length && SHORT_TOP[index] <= area.y1; index++) {
      const i = SHORT_ORDER[index];
      if (edgeVisible(i, area)) found.push(i);
    }
    for (let index2 = 0; index2 < LONG_ORDER.length; index2++) {
      const i = LONG_ORDER[index2];
      if (edgeVisible(i, area)) found.push(i);
    }
    for (const fan of fans) {
      const x = X[fan.src];
      if (Math.max(x, fan.maxX) < area.x0 || Math.min(x, fan.minX) > area.x1) continue;
      const low = lowerBound(fan.dstY, area.y0), high = lowerBound(fan.dstY, area.y1 + 1e-9);
      for (let k = low; k < high; k++) if (edgeVisible(fan.edges[k], area)) found.push(fan.edges[k]);
      // The edges ending above and below the view, passing through it: all of them when
      // their ends spread over more than a pixel across, else the farthest one for all.
      const narrow = (fan.maxX - fan.minX) * view.scale < 1;
      for (const [from, to] of [[0, low], [high, fan.edges.length]]) {
        if (from >= to) continue;
        const farthest = from === 0 ? from : to - 1;
        if (narrow) {
          if (edgeVisible(fan.edges[farthest], area)) found.push(fan.edges[farthest]);
        } else {
          for (let k = from; k < to; k++) if (edgeVisible(fan.edges[k], area)) found.push(fan.edges[k]);
        }
      }
    }
    return found;
  }

  // Where an edge ends: the node, or the collapsed group box standing for it.
  function anchorX(key) {
    const rep = REP[key];
    return rep >= 0 ? (groups[rep].x0 + groups[rep].x1) / 2 : X[key];
  }
  function anchorY(key, bottom) {
    const rep = REP[key];
    if (rep >= 0) return bottom ? groups[rep].y1 : groups[rep].y0;
    return bottom ? Y[key] + H[key] / 2 : Y[key] - H[key] / 2;
  }

  function edgeClass(i) {
    if (selectedKey !== null && (ESRC[i] === selectedKey || EDST[i] === selectedKey)) return 3;
    const a = STATE[ESRC[i]], b = STATE[EDST[i]];
    if (a === ON_PATH && b === ON_PATH) return 1;
    if (a === DIMMED || b === DIMMED) return 2;
    return 0;
  }

  function draw() {
    const started = performance.now();
    const size = canvasSize();
    const ratio = pixelRatio();
    if (canvas.width !== Math.round(size.width * ratio)) resizeCanvas();
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.fillStyle = COLORS.bg;
    ctx.fillRect(0, 0, size.width, size.height);
    ctx.setTransform(ratio * view.scale, 0, 0, ratio * view.scale, ratio * view.x, ratio * view.y);
    const area = worldView();
    drawGroups(area);
    // How many nodes the y-index puts in view (an upper bound, by two binary searches): beyond
    // DOT_LIMIT the frame draws pre-binned cells of a zoom level, not nodes.
    const inBand = lowerBound(NODE_TOP, area.y1 + 1e-9) - lowerBound(NODE_TOP, area.y0 - tallest);
    if (inBand > DOT_LIMIT && Math.max(tallest, 1) * view.scale < 3) {
      stats.mode = "cells";
      const level = levelAt(view.scale);
      drawLevel(level, area, size, ratio);
      stats.visibleNodes = level.visible;
      stats.visibleEdges = level.visibleEdges;
    } else {
      const visible = visibleNodes(area);
      const dots = visible.length > DOT_LIMIT || Math.max(tallest, 1) * view.scale < 2;
      stats.mode = dots ? "dots" : view.scale * 12 >= TEXT_MIN_PX ? "labels" : "boxes";
      const lines = visibleEdges(area);
      drawEdges(lines, dots);
      if (dots) drawDots(visible, size, ratio);
      else drawBoxes(visible);
      stats.visibleNodes = visible.length;
      stats.visibleEdges = lines.length;
    }
    stats.frames++;
    stats.lastFrameMs = performance.now() - started;
    stats.totalFrameMs += stats.lastFrameMs;
    drawMinimapView();
  }

  function drawGroups(area) {
    const px = 1 / view.scale;
    for (const group of groups) {
      if (group.hidden || group.x1 < area.x0 || group.x0 > area.x1 || group.y1 < area.y0 || group.y0 > area.y1) continue;
      if (group.kind === "fold") { // a stack of identical boxes
        ctx.beginPath();
        ctx.rect(group.x0 + 5, group.y0 - 5, group.x1 - group.x0, group.y1 - group.y0);
        ctx.fillStyle = "#eef2ff"; ctx.fill();
        ctx.lineWidth = px; ctx.strokeStyle = COLORS.group; ctx.stroke();
      }
      ctx.beginPath();
      ctx.rect(group.x0, group.y0, group.x1 - group.x0, group.y1 - group.y0);
      ctx.fillStyle = group.collapsed ? "#e0e7ff" : "rgba(99, 102, 241, 0.05)";
      ctx.fill();
      ctx.lineWidth = (group.collapsed ? 2 : 1) * px;
      ctx.strokeStyle = group.problems ? COLORS.bad : COLORS.group;
      ctx.stroke();
      if (group.loop) { // a fold whose steps feed each other
        const cx = group.x1, cy = (group.y0 + group.y1) / 2, r = Math.min(12, (group.y1 - group.y0) / 3);
        ctx.beginPath();
        ctx.arc(cx, cy, r, -Math.PI / 2, Math.PI / 2);
        ctx.lineWidth = 1.5 * px; ctx.strokeStyle = COLORS.stroke; ctx.stroke();
      }
      if (group.lines && group.collapsed && view.scale * 12 >= TEXT_MIN_PX) {
        ctx.textAlign = "center";
        ctx.textBaseline = "alphabetic";
        const middle = (group.x0 + group.x1) / 2;
        group.lines.forEach((line, index) => {
          ctx.font = (index === 0 ? "bold 12px " : "11px ") + FONT;
          ctx.fillStyle = index === 0 ? COLORS.group : COLORS.sub;
          ctx.fillText(line, middle, group.y0 + 7 + 15 * index + 11);
        });
      } else if (view.scale * 12 >= TEXT_MIN_PX) {
        ctx.fillStyle = COLORS.group;
        ctx.font = "bold 12px " + FONT;
        ctx.textAlign = "left";
        ctx.textBaseline = "top";
        ctx.fillText(group.label + (group.collapsed ? ` (${group.keys.length} nodes)` : ""), group.x0 + 4, group.y0 + 3);
      }
    }
  }

  function drawEdges(lines, dots) {
    const px = 1 / view.scale;
    const styles = [
      { color: COLORS.stroke, width: 1.2, alpha: 1 }, { color: COLORS.hot, width: 2.5, alpha: 1 },
      { color: COLORS.stroke, width: 1.2, alpha: 0.15 }, { color: COLORS.select, width: 2, alpha: 1 },
    ];
    const crowded = lines.length > EDGE_LIMIT;
    const paths = styles.map(() => new Path2D());
    const arrows = styles.map(() => new Path2D());
    const bends = !dots && lines.length < 5000;
    // Many edges: draw each on-screen segment once (a parameter feeding 50,000 nodes of a chain
    // is 50,000 edges over the same few pixels). Keys are the screen pixels of both ends, ends
    // off screen clamped to a margin, and the style.
    const seen = lines.length > 2000 ? new Set() : null;
    const size = canvasSize();
    const clampX = (v) => Math.min(Math.max(Math.round(v * view.scale + view.x), -100), size.width + 100) + 100;
    const clampY = (v) => Math.min(Math.max(Math.round(v * view.scale + view.y), -100), size.height + 100) + 100;
    for (const i of lines) {
      const style = edgeClass(i);
      if (crowded && style !== 1 && style !== 3) continue;
      const a = ESRC[i], b = EDST[i];
      if (REP[a] >= 0 && REP[a] === REP[b]) continue; // inside one collapsed group
      const x1 = anchorX(a), y1 = anchorY(a, true), x2 = anchorX(b), y2 = anchorY(b, false);
      if (dots && Math.abs(x2 - x1) * view.scale < 1 && Math.abs(y2 - y1) * view.scale < 1) continue;
      if (seen !== null) {
        const key = ((((clampX(x1) * 4096 + clampY(y1)) * 4096 + clampX(x2)) * 4096 + clampY(y2)) * 4) + style;
        if (seen.has(key)) continue;
        seen.add(key);
      }
      const path = paths[style];
      path.moveTo(x1, y1);
      if (bends) {
        const bend = Math.max(18, Math.abs(y2 - y1) / 2);
        path.bezierCurveTo(x1, y1 + bend, x2, y2 - bend, x2, y2);
        if (view.scale > 0.3) {
          const size = 6;
          arrows[style].moveTo(x2, y2);
          arrows[style].lineTo(x2 - size / 2, y2 - size);
          arrows[style].lineTo(x2 + size / 2, y2 - size);
          arrows[style].closePath();
        }
      } else {
        path.lineTo(x2, y2);
      }
    }
    styles.forEach((style, index) => {
      ctx.globalAlpha = style.alpha;
      ctx.strokeStyle = style.color;
      ctx.lineWidth = Math.max(style.width, 0.8 * px);
      ctx.stroke(paths[index]);
      ctx.fillStyle = style.color;
      ctx.fill(arrows[index]);
    });
    ctx.globalAlpha = 1;
  }

  function nodeStroke(key) {
    if (key === selectedKey) return [COLORS.select, 3];
    if (FLAGS[key] & NAN_ORIGIN) return [COLORS.bad, 3];
    if (MATCH[key]) return [COLORS.hot, 3];
    if (FLAGS[key] & STALE) return [COLORS.stale, 3];
    if (FLAGS[key] & APPEARED) return [COLORS.appeared, 3];
    if (STATE[key] === ON_PATH) return [COLORS.hot, 2.5];
    return [COLORS.stroke, 1];
  }

  function drawBoxes(visible) {
    const px = 1 / view.scale;
    const fills = COLORS.kind.map(() => new Path2D());
    const dimmedFills = COLORS.kind.map(() => new Path2D());
    const strokes = new Map();
    for (const key of visible) {
      const x = X[key] - W[key] / 2, y = Y[key] - H[key] / 2;
      (STATE[key] === DIMMED ? dimmedFills : fills)[KIND[key]].rect(x, y, W[key], H[key]);
      const [color, width] = nodeStroke(key);
      const id = color + "/" + width + "/" + (STATE[key] === DIMMED ? 1 : 0);
      if (!strokes.has(id)) strokes.set(id, { color, width, dimmed: STATE[key] === DIMMED, path: new Path2D() });
      strokes.get(id).path.rect(x, y, W[key], H[key]);
    }
    [[fills, 1], [dimmedFills, 0.25]].forEach(([list, alpha]) => {
      ctx.globalAlpha = alpha;
      list.forEach((path, kind) => { ctx.fillStyle = COLORS.kind[kind]; ctx.fill(path); });
    });
    for (const stroke of strokes.values()) {
      ctx.globalAlpha = stroke.dimmed ? 0.25 : 1;
      ctx.strokeStyle = stroke.color;
      ctx.lineWidth = Math.max(stroke.width, stroke.width * px * 0.5);
      ctx.stroke(stroke.path);
    }
    ctx.globalAlpha = 1;
    // Bad-gradient marks and stale marks: a small dot in the corner.
    for (const key of visible) {
      if (!(FLAGS[key] & (BAD_GRAD | STALE))) continue;
      ctx.fillStyle = FLAGS[key] & BAD_GRAD ? COLORS.bad : COLORS.stale;
      ctx.beginPath();
      ctx.arc(X[key] + W[key] / 2 - 5, Y[key] - H[key] / 2 + 5, 4, 0, 2 * Math.PI);
      ctx.fill();
    }
    if (view.scale * 12 < TEXT_MIN_PX) return;
    ctx.textAlign = "center";
    ctx.textBaseline = "alphabetic";
    for (const key of visible) {
      const lines = nodes[key].lines;
      const top = Y[key] - H[key] / 2;
      ctx.globalAlpha = STATE[key] === DIMMED ? 0.25 : 1;
      for (let index = 0; index < lines.length; index++) {
        ctx.font = (index === 0 ? "12px " : "11px ") + FONT;
        ctx.fillStyle = index === 0 ? COLORS.ink : COLORS.sub;
        ctx.fillText(lines[index], X[key], top + 7 + 15 * index + 11);
      }
    }
    ctx.globalAlpha = 1;
  }

  // Far out: one dot per screen pixel, coloured by the most telling node under it.
  // A screen-sized grid kept between frames; a frame visits and clears only the pixels it set.
  let dotGrid = new Uint8Array(0);
  function drawDots(visible, size, ratio) {
    const width = Math.ceil(size.width), height = Math.ceil(size.height);
    if (dotGrid.length < width * height) dotGrid = new Uint8Array(width * height);
    const cell = dotGrid; // 0 empty, else priority + 1
    const touched = [];
    const boxes = [];
    for (const key of visible) {
      const w = W[key] * view.scale, h = H[key] * view.scale;
      const sx = X[key] * view.scale + view.x, sy = Y[key] * view.scale + view.y;
      if (w >= 3 && h >= 3) { boxes.push(key); continue; }
      const px = Math.floor(sx), py = Math.floor(sy);
      if (px < 0 || py < 0 || px >= width || py >= height) continue;
      const index = py * width + px, value = dotPriority(key) + 1;
      if (!cell[index]) touched.push(index);
      if (value > cell[index]) cell[index] = value;
    }
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    const batches = new Map();
    for (const index of touched) {
      const value = cell[index];
      cell[index] = 0;
      if (!batches.has(value)) batches.set(value, new Path2D());
      batches.get(value).rect((index % width) - 1, Math.floor(index / width) - 1, 3, 3);
    }
    [...batches.keys()].sort((a, b) => a - b).forEach((value) => { ctx.fillStyle = dotColor(value); ctx.fill(batches.get(value)); });
    ctx.setTransform(ratio * view.scale, 0, 0, ratio * view.scale, ratio * view.x, ratio * view.y);
    if (boxes.length) drawBoxes(boxes);
  }

  // ---- zoom levels: nodes and edges binned into cells of 2^k world px -----------------------
  // Far out, a frame costs the number of occupied cells, not of nodes: a 100,000-node chain
  // fitted to the screen is ~1,000 cells. A level's cells (the cell of each node, the cell pair
  // of each edge) are built on first use and kept until nodes move or groups open or close;
  // what they show (the most telling node's colour, the edge style) is repainted from typed
  // arrays, without a map, when highlight, search or selection change.
  function invalidateLevels(geometry) {
    if (geometry) levels = new Map();
    else for (const level of levels.values()) level.painted = false;
  }
  function dotPriority(key) {
    return (FLAGS[key] & NAN_ORIGIN ? 6 : key === selectedKey ? 5 : MATCH[key] ? 4 : STATE[key] === ON_PATH ? 3 : STATE[key] === DIMMED ? 0 : 1) * 8 + KIND[key];
  }
  function levelAt(scale) {
    const k = Math.max(0, Math.ceil(Math.log2(1 / scale)));
    let level = levels.get(k);
    if (level === undefined) levels.set(k, (level = buildLevel(2 ** k)));
    if (!level.painted) paintLevel(level);
    return level;
  }
  function buildLevel(size) {
    const index = new Map(), xs = [], ys = [];
    const cellOf = new Int32Array(count).fill(-1);
    const OFFSET = 2 ** 20, ROW = 2 ** 21;
    const place = (x, y) => {
      const id = (Math.floor(x / size) + OFFSET) + (Math.floor(y / size) + OFFSET) * ROW;
      let cell = index.get(id);
      if (cell === undefined) {
        cell = xs.length;
        index.set(id, cell);
        xs.push((Math.floor(x / size) + 0.5) * size); ys.push((Math.floor(y / size) + 0.5) * size);
      }
      return cell;
    };
    for (let key = 0; key < count; key++) if (REP[key] < 0) cellOf[key] = place(X[key], Y[key]);
    const groupCells = [];
    groups.forEach((group) => {
      if (!group.collapsed || group.hidden) return;
      const cell = place((group.x0 + group.x1) / 2, (group.y0 + group.y1) / 2);
      groupCells.push(cell);
      for (const key of group.keys) cellOf[key] = cell;
    });
    const pairs = new Map(), from = [], to = [];
    const pairOf = new Int32Array(ESRC.length).fill(-1);
    for (let i = 0; i < ESRC.length; i++) {
      const a = cellOf[ESRC[i]], b = cellOf[EDST[i]];
      if (a === b || a < 0 || b < 0) continue;
      const id = a * 4194304 + b;
      let pair = pairs.get(id);
      if (pair === undefined) { pair = from.length; pairs.set(id, pair); from.push(a); to.push(b); }
      pairOf[i] = pair;
    }
    return {
      x: Float64Array.from(xs), y: Float64Array.from(ys), cellOf, groupCells, pairOf,
      from: Int32Array.from(from), to: Int32Array.from(to),
      priority: new Uint8Array(xs.length), style: new Uint8Array(from.length), painted: false,
      visible: 0, visibleEdges: 0,
    };
  }
  // A cell shows its most telling node (a collapsed group counts as a plain node); a cell
  // pair, the style of its first edge unless one of them is highlighted or selected.
  function paintLevel(level) {
    const { priority, style, cellOf, pairOf } = level;
    priority.fill(0);
    for (let key = 0; key < count; key++) {
      if (REP[key] >= 0) continue;
      const value = dotPriority(key);
      if (value > priority[cellOf[key]]) priority[cellOf[key]] = value;
    }
    for (const cell of level.groupCells) priority[cell] = Math.max(priority[cell], 1 * 8);
    style.fill(255);
    for (let i = 0; i < pairOf.length; i++) {
      const pair = pairOf[i];
      if (pair < 0) continue;
      const value = edgeClass(i);
      if (style[pair] === 255 || value === 1 || value === 3) style[pair] = value;
    }
    level.painted = true;
  }
  function drawLevel(level, area, size, ratio) {
    const scale = view.scale;
    const margin = 2 / scale;
    const inside = (cell) => level.x[cell] >= area.x0 - margin && level.x[cell] <= area.x1 + margin && level.y[cell] >= area.y0 - margin && level.y[cell] <= area.y1 + margin;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    const edgeStyles = [[COLORS.stroke, 1, 0.6], [COLORS.hot, 2, 1], [COLORS.stroke, 1, 0.12], [COLORS.select, 2, 1]];
    const paths = edgeStyles.map(() => new Path2D());
    let shown = 0;
    for (let i = 0; i < level.from.length; i++) {
      const a = level.from[i], b = level.to[i];
      const ax = level.x[a], ay = level.y[a], bx = level.x[b], by = level.y[b];
      if (Math.max(ax, bx) < area.x0 || Math.min(ax, bx) > area.x1 || Math.max(ay, by) < area.y0 || Math.min(ay, by) > area.y1) continue;
      const path = paths[level.style[i]];
      path.moveTo(ax * scale + view.x, ay * scale + view.y);
      path.lineTo(bx * scale + view.x, by * scale + view.y);
      shown++;
    }
    edgeStyles.forEach(([color, width, alpha], index) => {
      ctx.globalAlpha = alpha; ctx.strokeStyle = color; ctx.lineWidth = width; ctx.stroke(paths[index]);
    });
    ctx.globalAlpha = 1;
    const batches = new Map();
    let cells = 0;
    for (let cell = 0; cell < level.x.length; cell++) {
      if (!inside(cell)) continue;
      cells++;
      const value = level.priority[cell];
      if (!batches.has(value)) batches.set(value, new Path2D());
      batches.get(value).rect(Math.round(level.x[cell] * scale + view.x) - 1, Math.round(level.y[cell] * scale + view.y) - 1, 3, 3);
    }
    [...batches.keys()].sort((a, b) => a - b).forEach((value) => { ctx.fillStyle = dotColor(value + 1); ctx.fill(batches.get(value)); });
    ctx.setTransform(ratio * scale, 0, 0, ratio * scale, ratio * view.x, ratio * view.y);
    level.visible = cells;
    level.visibleEdges = shown;
  }
  function dotColor(value) {
    const level = (value - 1) >> 3, kind = (value - 1) & 7;
    return level === 6 ? COLORS.bad : level === 5 ? COLORS.select : level === 4 || level === 3 ? COLORS.hot : level === 0 ? "#c8cbd0" : kind === 0 ? "#8a8f98" : COLORS.kind[kind];
  }

  // ---- minimap: the whole graph, squeezed to fit, with the view's rectangle ----------------
  let bounds = { x0: 0, y0: 0, x1: 1, y1: 1 };
  const miniBase = document.createElement("canvas");
  function computeBounds() {
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    for (let k = 0; k < count; k++) {
      if (REP[k] >= 0) continue; // drawn as its group's box
      minX = Math.min(minX, X[k] - W[k] / 2); maxX = Math.max(maxX, X[k] + W[k] / 2);
      minY = Math.min(minY, Y[k] - H[k] / 2); maxY = Math.max(maxY, Y[k] + H[k] / 2);
    }
    for (const group of groups) {
      if (group.hidden) continue;
      minX = Math.min(minX, group.x0); maxX = Math.max(maxX, group.x1);
      minY = Math.min(minY, group.y0); maxY = Math.max(maxY, group.y1);
    }
    if (minX !== Infinity) bounds = { x0: minX, y0: minY, x1: maxX, y1: maxY };
  }
  // The minimap stretches x and y apart, so a long chain still fills it.
  function miniScale() {
    return { sx: minimap.width / Math.max(bounds.x1 - bounds.x0, 1), sy: minimap.height / Math.max(bounds.y1 - bounds.y0, 1) };
  }
  function drawMinimapBase() {
    miniBase.width = minimap.width; miniBase.height = minimap.height;
    const mctx = miniBase.getContext("2d");
    mctx.fillStyle = "#ffffff";
    mctx.fillRect(0, 0, miniBase.width, miniBase.height);
    const { sx, sy } = miniScale();
    const layers = [[], [], [], []]; // plain, on path, match, nan origin
    for (let k = 0; k < count; k++) {
      const level = FLAGS[k] & NAN_ORIGIN ? 3 : MATCH[k] ? 2 : STATE[k] === ON_PATH ? 1 : 0;
      layers[level].push(k);
    }
    const width = miniBase.width, height = miniBase.height;
    ["#9ca3af", COLORS.hot, COLORS.hot, COLORS.bad].forEach((color, level) => {
      mctx.fillStyle = color;
      const seen = new Uint8Array(width * height); // one square per minimap pixel
      for (const k of layers[level]) {
        const px = Math.floor((X[k] - bounds.x0) * sx), py = Math.floor((Y[k] - bounds.y0) * sy);
        if (px >= 0 && py >= 0 && px < width && py < height) {
          if (seen[py * width + px]) continue;
          seen[py * width + px] = 1;
        }
        const size = level ? 3 : 1.5;
        mctx.fillRect(px - size / 2, py - size / 2, size, size);
      }
    });
    drawMinimapView();
  }
  function drawMinimapView() {
    miniCtx.drawImage(miniBase, 0, 0);
    const { sx, sy } = miniScale();
    const area = worldView();
    miniCtx.strokeStyle = COLORS.select;
    miniCtx.lineWidth = 1.5;
    const x = (area.x0 - bounds.x0) * sx, y = (area.y0 - bounds.y0) * sy;
    miniCtx.strokeRect(x, y, Math.max((area.x1 - area.x0) * sx, 3), Math.max((area.y1 - area.y0) * sy, 3));
  }
  function minimapMove(event) {
    const box = minimap.getBoundingClientRect();
    const { sx, sy } = miniScale();
    const wx = bounds.x0 + (event.clientX - box.left) * (minimap.width / box.width) / sx;
    const wy = bounds.y0 + (event.clientY - box.top) * (minimap.height / box.height) / sy;
    const size = canvasSize();
    view.x = size.width / 2 - wx * view.scale;
    view.y = size.height / 2 - wy * view.scale;
    moving();
    scheduleDraw();
  }
  let miniDrag = false;
  minimap.addEventListener("pointerdown", (event) => { miniDrag = true; minimapMove(event); event.stopPropagation(); });
  window.addEventListener("pointermove", (event) => { if (miniDrag) minimapMove(event); });
  window.addEventListener("pointerup", () => { miniDrag = false; });

  // ---- pan and zoom ------------------------------------------------------------------
  // Fit the given nodes (all by default) into the canvas.
  function fit(keys) {
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    const take = (k) => {
      minX = Math.min(minX, X[k] - W[k] / 2); maxX = Math.max(maxX, X[k] + W[k] / 2);
      minY = Math.min(minY, Y[k] - H[k] / 2); maxY = Math.max(maxY, Y[k] + H[k] / 2);
    };
    if (Array.isArray(keys)) keys.forEach(take);
    else if (count) ({ x0: minX, y0: minY, x1: maxX, y1: maxY } = bounds);
    if (minX === Infinity) return;
    const size = canvasSize();
    const margin = 30;
    const scale = Math.min(
      (size.width - 2 * margin) / Math.max(maxX - minX, 1),
      (size.height - 2 * margin) / Math.max(maxY - minY, 1),
      1.6
    );
    view.scale = Math.max(scale, 1e-6);
    view.x = size.width / 2 - ((minX + maxX) / 2) * view.scale;
    view.y = size.height / 2 - ((minY + maxY) / 2) * view.scale;
    scheduleDraw();
  }

  // Big graphs fitted whole would have unreadable text: start readable, at the root (the
  // loss, at the bottom), and let "fit" show everything.
  const READABLE_SCALE = 0.75;
  function initialView() {
    fit();
    if (view.scale >= READABLE_SCALE || !data.roots.length) return;
    const size = canvasSize();
    const rootX = data.roots.reduce((sum, k) => sum + X[k], 0) / data.roots.length;
    const rootBottom = Math.max(...data.roots.map((k) => Y[k] + H[k] / 2));
    view.scale = READABLE_SCALE;
    view.x = size.width / 2 - rootX * view.scale;
    view.y = size.height - 30 - rootBottom * view.scale;
    scheduleDraw();
  }

  // Fit `keys`; if that makes text unreadable, show `focusKey` at a readable zoom instead.
  function fitOrFocus(keys, focusKey) {
    fit(keys);
    if (view.scale >= READABLE_SCALE) return;
    view.scale = READABLE_SCALE;
    centerOn(focusKey);
  }

  function zoomAt(factor, cx, cy) {
    const next = Math.min(Math.max(view.scale * factor, 1e-6), 8);
    const ratio = next / view.scale;
    view.x = cx - (cx - view.x) * ratio;
    view.y = cy - (cy - view.y) * ratio;
    view.scale = next;
    scheduleDraw();
  }

  function centerOn(key) {
    if (api.onReveal) api.onReveal(key);
    const size = canvasSize();
    if (view.scale < READABLE_SCALE) view.scale = 0.9;
    view.x = size.width / 2 - X[key] * view.scale;
    view.y = size.height / 2 - Y[key] * view.scale;
    scheduleDraw();
  }

  // The node (or collapsed group) under a screen point.
  function hitTest(clientX, clientY) {
    const box = canvas.getBoundingClientRect();
    const wx = (clientX - box.left - view.x) / view.scale, wy = (clientY - box.top - view.y) / view.scale;
    const slack = Math.max(0, 3 / view.scale - 1); // at least ~3 px to aim at when zoomed out
    for (let index = groups.length - 1; index >= 0; index--) {
      const group = groups[index];
      // A collapsed box anywhere; an open one (a module frame) by its label band.
      const bottom = group.collapsed ? group.y1 : group.header ? group.y0 + group.header : -Infinity;
      if (!group.hidden && wx >= group.x0 && wx <= group.x1 && wy >= group.y0 && wy <= bottom) return { group: index };
    }
    let best = null, bestDistance = Infinity;
    const area = { x0: wx - slack, x1: wx + slack, y0: wy - slack, y1: wy + slack };
    for (const key of visibleNodes(area)) {
      const dx = Math.max(Math.abs(wx - X[key]) - W[key] / 2, 0), dy = Math.max(Math.abs(wy - Y[key]) - H[key] / 2, 0);
      const distance = dx + dy;
      if (distance <= slack && distance < bestDistance) { best = key; bestDistance = distance; }
    }
    return best === null ? null : { node: best };
  }

  let drag = null;
  canvas.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    drag = { x: event.clientX, y: event.clientY, vx: view.x, vy: view.y, moved: false };
    canvas.classList.add("panning");
  });
  window.addEventListener("pointermove", (event) => {
    if (!drag) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    view.x = drag.vx + dx;
    view.y = drag.vy + dy;
    moving();
    scheduleDraw();
  });
  window.addEventListener("pointerup", (event) => {
    if (!drag) return;
    const moved = drag.moved;
    drag = null;
    canvas.classList.remove("panning");
    if (moved || event.target !== canvas) return;
    const hit = hitTest(event.clientX, event.clientY);
    if (hit === null) clearHighlight();
    else if (hit.node !== undefined) select(hit.node);
    else api.onGroupClick(groups[hit.group]);
  });
  canvas.addEventListener(
    "wheel",
    (event) => {
      event.preventDefault();
      const box = canvas.getBoundingClientRect();
      moving();
      zoomAt(Math.exp(-event.deltaY * 0.0015), event.clientX - box.left, event.clientY - box.top);
    },
    { passive: false }
  );
  canvas.addEventListener("mousemove", (event) => {
    if (drag) return;
    const hit = hitTest(event.clientX, event.clientY);
    canvas.title = hit === null ? "" : hit.node !== undefined ? nodes[hit.node].lines.join(" ") : groups[hit.group].label;
  });

  // ---- highlighting ------------------------------------------------------------------
  function clearHighlight() {
    invalidateLevels();
    STATE.fill(0);
    document.querySelectorAll("#param-list li.active, #module-list li.active").forEach((li) => li.classList.remove("active"));
    selectedKey = null;
    scheduleDraw();
    drawMinimapBase();
  }

  // Every node downstream of `start` lies on a path to a root (the graph holds nothing else).
  function highlightPaths(start) {
    const onPath = new Uint8Array(count);
    onPath[start] = 1;
    const stack = [start];
    let size = 1;
    while (stack.length) {
      const key = stack.pop();
      for (const edge of edgesOf(OUT, key)) {
        const next = EDST[edge];
        if (!onPath[next]) { onPath[next] = 1; size++; stack.push(next); }
      }
    }
    for (let k = 0; k < count; k++) STATE[k] = onPath[k] ? ON_PATH : DIMMED;
    invalidateLevels();
    scheduleDraw();
    drawMinimapBase();
    return { onPath, size };
  }

  // Light up a set of nodes (and the edges among them), dim the rest.
  function highlightSet(keys) {
    STATE.fill(DIMMED);
    for (const key of keys) STATE[key] = ON_PATH;
    invalidateLevels();
    scheduleDraw();
    drawMinimapBase();
  }

  function selectModule(module, listItem) {
    document.querySelectorAll("#param-list li.active, #module-list li.active").forEach((li) => li.classList.remove("active"));
    if (listItem) listItem.classList.add("active");
    const extra = api.onModuleSelect ? api.onModuleSelect(module) || [] : [];
    highlightSet(module.keys);
    if (module.keys.length) fitOrFocus(module.keys, module.keys[module.keys.length - 1]);
    const body = [
      el("h3", { text: module.label }),
      el("div", { class: "kind", text: "module" }),
      el("p", { text: module.calls ? `called ${module.calls} time${module.calls === 1 ? "" : "s"}` + (module.gradEnabled ? "" : ", always with grad mode off (no_grad)") : "never called in the recorded forward pass" }),
      el("p", { text: `${module.keys.length} node${module.keys.length === 1 ? "" : "s"} of this graph created by it (innermost module)` }),
    ];
    body.push(...extra);
    const list = el("ul", {}, module.keys.slice(0, 500).map((key) => el("li", {}, [nodeLink(key)])));
    body.push(list);
    panelBody.replaceChildren(...body);
  }

  function select(key) {
    if (api.onReveal) api.onReveal(key);
    selectedKey = key;
    invalidateLevels();
    scheduleDraw();
    renderPanel(key);
  }

  function selectParam(param, listItem) {
    document.querySelectorAll("#param-list li.active, #module-list li.active").forEach((li) => li.classList.remove("active"));
    if (listItem) listItem.classList.add("active");
    if (param.nodeKey === null) {
      STATE.fill(0);
      selectedKey = null;
      invalidateLevels();
      scheduleDraw();
      renderParamOnly(param);
      return;
    }
    const { onPath, size } = highlightPaths(param.nodeKey);
    select(param.nodeKey);
    // Fit the paths when they are few; a long chain would fit unreadably small anyway.
    if (size <= 2000) fitOrFocus(Array.from({ length: count }, (_, k) => k).filter((k) => onPath[k]), param.nodeKey);
    else centerOn(param.nodeKey);
    const roots = data.roots.length > 1 ? "roots" : "root";
    panelBody.prepend(el("p", { class: "hint", text: `${size} nodes on the paths from ${param.name} to the ${roots}` }));
  }

  // ---- search ------------------------------------------------------------------------
  let matches = [];
  let matchIndex = -1;
  let searchText = null;
  function runSearch() {
    const query = searchBox.value.trim().toLowerCase();
    MATCH.fill(0);
    invalidateLevels();
    matches = [];
    matchIndex = -1;
    if (query) {
      if (searchText === null) searchText = nodes.map((node) => (node.lines.join(" ") + (node.module ? " " + node.module : "")).toLowerCase());
      for (let k = 0; k < count; k++) if (searchText[k].includes(query)) { MATCH[k] = 1; matches.push(k); }
    }
    searchCount.textContent = query ? `${matches.length} match${matches.length === 1 ? "" : "es"}` : "";
    scheduleDraw();
    drawMinimapBase();
  }

  function nextMatch(step) {
    if (!matches.length) return;
    matchIndex = (matchIndex + step + matches.length) % matches.length;
    const key = matches[matchIndex];
    centerOn(key);
    select(key);
    searchCount.textContent = `${matchIndex + 1} of ${matches.length}`;
  }

  searchBox.addEventListener("input", runSearch);
  searchBox.addEventListener("keydown", (event) => {
    if (event.key === "Enter") nextMatch(event.shiftKey ? -1 : 1);
    if (event.key === "Escape") {
      searchBox.value = "";
      runSearch();
      searchBox.blur();
    }
  });

  // ---- the details panel -------------------------------------------------------------
  function statsTable(stats) {
    if (!stats) return el("span", { class: "none", text: "none" });
    const cell = (value, bad) => el("td", { class: bad ? "mono bad-text" : "mono", text: fmt(value) });
    return el("table", { class: "kv stats" }, [
      el("tr", {}, [el("th", { text: "shape" }), el("td", { class: "mono", text: shapeText(stats.shape) + " " + stats.dtype })]),
      el("tr", {}, [el("th", { text: "norm" }), cell(stats.norm, stats.norm === "nan" || stats.norm === "inf")]),
      el("tr", {}, [el("th", { text: "min / max" }), el("td", { class: "mono", text: fmt(stats.min) + " / " + fmt(stats.max) })]),
      el("tr", {}, [el("th", { text: "mean" }), cell(stats.mean, false)]),
      el("tr", {}, [
        el("th", { text: "NaN / Inf / zero" }),
        el("td", {
          class: stats.num_nan || stats.num_inf ? "mono bad-text" : "mono",
          text: `${stats.num_nan} / ${stats.num_inf} / ${stats.num_zero} of ${stats.numel}`,
        }),
      ]),
    ]);
  }

  function nodeLink(key) {
    return el("span", { class: "link", text: nodeTitle(key), onclick: () => { centerOn(key); select(key); } });
  }

  function section(title, ...content) {
    return [el("h4", { text: title }), ...content];
  }

  function renderCode(node) {
    if (node.code) {
      const where = `${node.code.file}:${node.code.line} in ${node.code.function}`;
      const parts = [el("div", { class: "mono", text: where }), el("div", { class: "code", text: node.code.text })];
      if (node.traceback && node.traceback.length) {
        parts.push(el("details", {}, [el("summary", { text: "full stack" }), el("div", { class: "code", text: node.traceback.join("\n") })]));
      }
      return section("created at", ...parts);
    }
    return section(
      "created at",
      el("p", { class: "hint", text: "not recorded: run the forward pass under glassgrad.autograd.detect_anomaly() to see the line of code that created each node" })
    );
  }

  function renderOp(node, body) {
    body.push(el("div", { class: "kind", text: node.variable !== undefined ? "AccumulateGrad: adds the gradient into the leaf's .grad" : "backward function (grad_fn)" }));
    if (node.function) { // the backward of a custom autograd.Function: which one, and its doc
      body.push(el("p", {}, ["custom Function ", el("span", { class: "mono", text: node.function.name })]));
      if (node.function.doc) body.push(el("div", { class: "code", text: node.function.doc }));
    }
    if (node.module !== null && node.module !== undefined) body.push(moduleLine(node.module));
    if (node.variable !== undefined) {
      body.push(el("p", {}, ["leaf: ", nodeLink(node.variable)]));
    }
    if (node.backward) {
      body.push(el("p", { class: "mono", text: `backward step ${node.backward.step}` }));
    } else if (data.traced) {
      body.push(el("p", { class: "hint", text: "did not run during the recorded backward" }));
    }
    if (node.nanOrigin === "backward") {
      body.push(el("p", { class: "bad-text", text: "NaN/Inf first appeared here: this node received finite gradients and produced non-finite ones" }));
    } else if (node.nanOrigin === "forward") {
      body.push(el("p", { class: "bad-text", text: "a saved forward value holds NaN/Inf here, and none before it" }));
    }
    if (node.stale) body.push(el("p", { class: "bad-text", "data-stale": "true", text: node.stale }));
    body.push(...renderCode(node));
    if (node.inputs && node.inputs.length) {
      const rows = node.inputs.map((input) =>
        el("tr", {}, [
          el("td", { class: "mono", text: String(input.slot) }),
          el("td", {}, [input.from !== null ? nodeLink(input.from) : el("span", { class: "none", text: "no graph" })]),
          el("td", { class: "mono", text: metaText(input.meta) }),
        ])
      );
      body.push(...section("inputs", el("table", { class: "kv" }, [el("tr", {}, [el("th", { text: "#" }), el("th", { text: "from" }), el("th", { text: "shape, dtype" })]), ...rows])));
    }
    if (node.outputs && node.outputs.length) {
      body.push(...section("outputs", el("table", { class: "kv" }, node.outputs.map((meta, i) =>
        el("tr", {}, [el("td", { class: "mono", text: String(i) }), el("td", { class: "mono", text: metaText(meta) })])))));
    }
    const saved = node.saved || [];
    if (saved.length || node.savedError) {
      const items = saved.map((entry) =>
        entry.stats
          ? el("div", {}, [el("div", { class: "mono", text: entry.name }), statsTable(entry.stats)])
          : el("div", { class: "mono", text: `${entry.name} = ${entry.value}` })
      );
      if (node.savedError) items.push(el("p", { class: "bad-text", text: node.savedError }));
      body.push(...section("saved for backward", ...items));
    }
    if (node.backward) {
      const received = node.backward.received.map((stats, i) => el("div", {}, [el("div", { class: "mono", text: `output ${i}` }), statsTable(stats)]));
      const sent = node.backward.sent.map((stats, i) => {
        const input = node.inputs && node.inputs[i];
        const target = input && input.from !== null ? [" → ", nodeLink(input.from)] : [];
        return el("div", {}, [el("div", { class: "mono" }, [`input ${i}`, ...target]), statsTable(stats)]);
      });
      body.push(...section("gradient received", ...received));
      if (sent.length) body.push(...section("gradient sent", ...sent));
    } else if (!data.traced) {
      body.push(...section("gradient", el("p", { class: "hint", text: "not recorded: run backward with glassgrad.viz.trace_backward(loss) and pass trace= to explore()" })));
    }
    body.push(...diffSection(node));
    body.push(...termSection(node.terms));
    for (const extra of api.panelSections) body.push(...(extra(node) || []));
  }

  // Per loss term, the gradient norm it sends here (explore(attribution=...)); "-": no path.
  function termSection(terms) {
    if (!data.terms) return [];
    const rows = data.terms.map((term) => el("tr", { "data-term": term }, [
      el("th", { text: term }),
      el("td", { class: "mono", text: terms && terms[term] !== undefined ? fmt(terms[term]) : "- (no path)" }),
    ]));
    return section("gradient by loss term", el("table", { class: "kv" }, rows));
  }

  // The gradient this node received in the pass it is compared with (explore(compare=...)).
  function diffSection(node) {
    if (!data.diff) return [];
    if (node.appeared) return section("compared with the other pass", el("p", { class: "bad-text", text: "not in the other pass: this node appeared" }));
    if (!node.diff) return [];
    return section("compared with the other pass", el("p", { class: "mono", "data-diff": "node", text: `gradient received: ${fmt(node.diff.before)} → ${fmt(node.diff.after)}${ratioText(node.diff.before, node.diff.after)}` }));
  }

  function ratioText(before, after) {
    if (typeof before !== "number" || typeof after !== "number") return "";
    if (before === 0) return after === 0 ? "" : " (from 0)";
    return ` (×${fmt(after / before)})`;
  }

  function buildDiffSection() {
    if (!data.diff) return;
    document.getElementById("diff-section").hidden = false;
    const rows = data.diff.params.map((p) => el("li", { "data-diff-param": p.name }, [
      el("span", { class: "pname", text: p.name }),
      el("span", { class: "pnorm", text: `${fmt(p.before)} → ${fmt(p.after)}${ratioText(p.before, p.after)}` }),
    ]));
    const vanished = data.diff.vanished;
    rows.push(el("li", { class: "none", text: `${data.diff.appeared} node(s) appeared (green), ${vanished.length} vanished` + (vanished.length ? ": " + vanished.slice(0, 8).join(", ") : "") }));
    document.getElementById("diff-list").replaceChildren(...rows);
  }

  function moduleLine(name) {
    const module = (data.modules || []).find((m) => m.name === name);
    const label = module ? module.label : name;
    return el("p", {}, ["created in ", el("span", { class: "link", text: label, onclick: () => module && selectModule(module, null) })]);
  }

  function renderTensor(node, body) {
    const kinds = { output: "output tensor", param: "parameter (leaf)", leaf: "leaf tensor that requires grad", base: "base of a view", saved: "saved tensor" };
    body.push(el("div", { class: "kind", text: kinds[node.kind] || "tensor" }));
    if (node.module !== null && node.module !== undefined) body.push(moduleLine(node.module));
    body.push(el("p", { class: "mono", text: `${shapeText(node.shape)} ${node.dtype}, requires_grad=${node.requiresGrad ? "True" : "False"}` }));
    body.push(...section("value", statsTable(node.value)));
    if (node.kind === "param" || node.kind === "leaf") {
      body.push(...section(".grad", statsTable(node.grad)));
    }
    const param = paramByNode.get(node.key);
    if (param && param.frozen) body.push(frozenLine(param.frozen));
    else if (param && param.reason !== "ok") body.push(el("p", { class: "bad-text", text: param.detail }));
    if (param) body.push(...termSection(param.terms));
    for (const extra of api.panelSections) body.push(...(extra(node) || []));
  }

  // expected_frozen=: "frozen" (no gradient, as meant) or "not frozen" (it still trains).
  function frozenLine(frozen) {
    return el("p", { class: frozen.status === "frozen" ? "" : "bad-text", "data-frozen": frozen.status, text: frozen.detail });
  }

  function renderPanel(key) {
    const node = withDetails(key);
    const body = [el("h3", {}, breakable(nodeTitle(key)))];
    if (node.kind === "op") renderOp(node, body);
    else renderTensor(node, body);
    panelBody.replaceChildren(...body);
  }

  function renderParamOnly(param) {
    panelBody.replaceChildren(
      el("h3", {}, breakable(param.name)),
      el("div", { class: "kind", text: "parameter, not in this graph" }),
      el("p", { class: "mono", text: `${shapeText(param.shape)} ${param.dtype}` }),
      el("p", { class: "bad-text", text: param.reason }),
      el("p", { text: param.detail }),
      ...(param.frozen ? [frozenLine(param.frozen)] : []),
      ...(param.evidenceKey !== null ? [el("p", {}, ["seen at: ", nodeLink(param.evidenceKey)])] : [])
    );
  }

  // ---- side bar ----------------------------------------------------------------------
  function badgeFor(param) {
    if (param.frozen) return el("span", { class: "badge " + (param.frozen.status === "frozen" ? "ok" : "bad"), text: param.frozen.status });
    if (param.reason !== "ok") return el("span", { class: "badge bad", text: "no grad" });
    if (isBadStats(param.grad)) return el("span", { class: "badge bad", text: "NaN/Inf" });
    if (param.grad && param.grad.numel && param.grad.num_zero === param.grad.numel) return el("span", { class: "badge warn", text: "zero" });
    if (param.grad) return el("span", { class: "badge ok", text: "grad" });
    return el("span", { class: "badge", text: "no .grad yet" });
  }

  function buildSidebar() {
    const list = document.getElementById("param-list");
    if (!data.params.length) list.append(el("li", { class: "none", text: "none given (pass params=)" }));
    data.params.forEach((param) => {
      const item = el("li", { "data-param": param.name, title: param.frozen ? param.frozen.detail : param.detail }, [
        el("span", { class: "pname" }, breakable(param.name)),
        el("span", { class: "pnorm", text: param.grad ? "‖g‖ " + fmt(param.grad.norm) : "" }),
        badgeFor(param),
      ]);
      item.addEventListener("click", () => selectParam(param, item));
      list.append(item);
    });

    const modules = data.modules || [];
    if (modules.length) {
      document.getElementById("modules-section").hidden = false;
      const moduleList = document.getElementById("module-list");
      modules.forEach((module) => {
        const badge = !module.calls && !module.container
          ? el("span", { class: "badge warn", text: "not called" })
          : !module.gradEnabled
            ? el("span", { class: "badge warn", text: "no_grad" })
            : null;
        const item = el("li", { "data-module": module.name, title: module.label }, [
          el("span", { class: "pname" }, breakable(module.name === "" ? module.label : `${module.name} (${module.type})`)),
          el("span", { class: "pnorm", text: String(module.keys.length) }),
          badge,
        ]);
        item.addEventListener("click", () => selectModule(module, item));
        moduleList.append(item);
      });
    }

    const problems = document.getElementById("problems");
    const entries = [];
    data.nanOrigins.forEach((origin) => {
      entries.push(
        el("div", { class: "problem", "data-problem": "nan", onclick: () => { centerOn(origin.key); select(origin.key); } }, [
          el("div", { class: "what", text: origin.text }),
          el("div", { class: "why", text: origin.where === "backward" ? "NaN/Inf first appeared in the backward pass here" : "a saved forward value first holds NaN/Inf here" }),
        ])
      );
    });
    data.params.forEach((param) => {
      if (param.reason === "ok" || param.frozen) return;  // no gradient, as expected_frozen= meant
      entries.push(
        el("div", { class: "problem" + (param.certain ? "" : " warn"), "data-problem": "no-grad", onclick: () => selectParam(param, null) }, [
          el("div", { class: "what", text: `${param.name}: no gradient` }),
          el("div", { class: "why", text: param.detail }),
        ])
      );
    });
    data.params.forEach((param) => {
      if (param.reason === "ok" && isBadStats(param.grad)) {
        entries.push(el("div", { class: "problem", "data-problem": "bad-grad", onclick: () => selectParam(param, null) }, [
          el("div", { class: "what", text: `${param.name}: .grad has NaN/Inf` }),
          el("div", { class: "why", text: `${param.grad.num_nan} NaN, ${param.grad.num_inf} Inf of ${param.grad.numel}` }),
        ]));
      }
    });
    for (let key = 0; key < count; key++) {
      if (!(FLAGS[key] & STALE)) continue;
      const node = nodes[key];
      entries.push(el("div", { class: "problem", "data-problem": "stale", onclick: () => { centerOn(node.key); select(node.key); } }, [
        el("div", { class: "what", text: `${node.label}: saved tensor changed in place` }),
        el("div", { class: "why", text: node.stale }),
      ]));
    }
    // The relative rules of the shared health verdict (check_health), and "not-frozen": NaN
    // origins and dead parameters are listed above from the same facts.
    const health = data.health || { findings: [], params: [] };
    health.findings.forEach((finding) => {
      if (finding.kind === "nan" || finding.kind === "dead") return;
      entries.push(el("div", { class: "problem" + (finding.kind.startsWith("update") ? " warn" : ""), "data-problem": finding.kind, onclick: () => {
        if (finding.keys.length) { highlightSet(finding.keys); fitOrFocus(finding.keys, finding.keys[0]); }
        panelBody.replaceChildren(el("h3", { text: finding.subject }), el("div", { class: "kind", text: finding.kind }), el("p", { text: finding.detail }));
      } }, [
        el("div", { class: "what", text: `${finding.subject}: ${finding.kind}` }),
        el("div", { class: "why", text: finding.detail }),
      ]));
    });
    drawDepthChart(health.params);
    if (data.backwardError) {
      entries.push(el("div", { class: "problem" }, [el("div", { class: "what", text: "backward failed" }), el("div", { class: "why", text: data.backwardError })]));
    }
    if (!entries.length) entries.push(el("p", { class: "none", text: "none found" }));
    problems.replaceChildren(...entries);

    const counts = data.counts;
    document.getElementById("summary").textContent =
      `${counts.ops} backward functions · ${counts.nodes} nodes · ${counts.edges} edges · ` +
      (data.traced ? "backward recorded" : "backward not recorded");
  }

  // Gradient norm of each parameter against its depth from the loss, log scale.
  function drawDepthChart(params) {
    const points = params.filter((p) => typeof p.norm === "number" && p.norm > 0);
    if (points.length < 2) return;
    document.getElementById("depth-section").hidden = false;
    const chart = document.getElementById("depth-chart");
    const c = chart.getContext("2d");
    const maxDepth = Math.max(...points.map((p) => p.depth), 1);
    const logs = points.map((p) => Math.log10(p.norm));
    const low = Math.floor(Math.min(...logs)), high = Math.ceil(Math.max(...logs)) || low + 1;
    const left = 34, bottom = chart.height - 16, top = 6, right = chart.width - 6;
    const px = (depth) => left + (depth / maxDepth) * (right - left);
    const py = (log) => bottom - ((log - low) / Math.max(high - low, 1)) * (bottom - top);
    c.clearRect(0, 0, chart.width, chart.height);
    c.font = "9px " + FONT;
    c.fillStyle = COLORS.sub;
    c.strokeStyle = "#e5e7eb";
    for (let e = low; e <= high; e++) {
      c.beginPath(); c.moveTo(left, py(e)); c.lineTo(right, py(e)); c.stroke();
      c.fillText("1e" + e, 2, py(e) + 3);
    }
    c.fillText("depth →", right - 40, chart.height - 3);
    const sorted = points.map((p, i) => [p.depth, logs[i], p.name]).sort((a, b) => a[0] - b[0]);
    c.strokeStyle = COLORS.select;
    c.beginPath();
    sorted.forEach(([depth, log], i) => (i ? c.lineTo(px(depth), py(log)) : c.moveTo(px(depth), py(log))));
    c.stroke();
    const flagged = new Set((data.health.findings || []).map((f) => f.subject));
    sorted.forEach(([depth, log, name]) => {
      c.fillStyle = flagged.has(name) ? COLORS.bad : COLORS.select;
      c.beginPath(); c.arc(px(depth), py(log), 2.5, 0, 2 * Math.PI); c.fill();
    });
    chart.title = sorted.map(([depth, log, name]) => `${name}: depth ${depth}, |g| ${fmt(10 ** log)}`).join("\n");
  }

  // ---- wiring ------------------------------------------------------------------------
  document.getElementById("fit").addEventListener("click", () => fit());
  document.getElementById("clear").addEventListener("click", clearHighlight);
  document.getElementById("zoom-in").addEventListener("click", () => {
    const size = canvasSize();
    zoomAt(1.25, size.width / 2, size.height / 2);
  });
  document.getElementById("zoom-out").addEventListener("click", () => {
    const size = canvasSize();
    zoomAt(0.8, size.width / 2, size.height / 2);
  });
  window.addEventListener("keydown", (event) => {
    if (event.target === searchBox) return;
    if (event.key === "Escape") clearHighlight();
    if (event.key === "/") {
      event.preventDefault();
      searchBox.focus();
    }
    if (event.key === "f") fit();
  });
  window.addEventListener("resize", () => { resizeCanvas(); scheduleDraw(); });

  // What other code (module boxes, tests, benchmarks) may use: the renderer's state and verbs.
  const api = {
    data, view, stats, timings, motion,
    // Extra panel sections: functions node -> [elements], appended to a node's details.
    panelSections: [],
    // A click on a collapsed group box; the default expands it.
    onGroupClick: (group) => setCollapsed(group.id, false),
    setGroups, setCollapsed, groups: () => groups,
    // A module picked in the side bar: called first; returns elements to add to its panel.
    onModuleSelect: null,
    // Called with a node about to be centred or selected: code that hides nodes shows it.
    onReveal: null,
    // Move nodes ({key: {x, y}} or a Map) and set the group boxes: a new layout.
    relayout(positions, groupList) {
      const entries = positions instanceof Map ? positions.entries() : Object.entries(positions);
      for (const [key, point] of entries) { X[key] = point.x; Y[key] = point.y; }
      buildIndex();
      setGroups(groupList);
      computeBounds();
      drawMinimapBase();
      scheduleDraw();
    },
    canvasSize,
    redraw: () => { draw(); return stats.lastFrameMs; },
    scheduleDraw, fit, fitOrFocus, centerOn, zoomAt, select, selectParam, selectModule,
    highlightSet, clearHighlight, el, fmt, statsTable, nodeLink, section,
    selected: () => selectedKey,
    // Flags of a node, by name, as the tests read them.
    flags(key) {
      const names = [];
      if (STATE[key] === ON_PATH) names.push("on-path");
      if (STATE[key] === DIMMED) names.push("dimmed");
      if (MATCH[key]) names.push("match");
      if (key === selectedKey) names.push("selected");
      if (FLAGS[key] & NAN_ORIGIN) names.push("nan-origin");
      if (FLAGS[key] & BAD_GRAD) names.push("bad-grad");
      if (FLAGS[key] & STALE) names.push("stale");
      if (FLAGS[key] & APPEARED) names.push("appeared");
      if (REP[key] >= 0) names.push("collapsed");
      return names;
    },
    keysWith(flag) {
      const keys = [];
      for (let k = 0; k < count; k++) if (api.flags(k).includes(flag)) keys.push(k);
      return keys;
    },
    // A node's centre in page (client) coordinates, and its drawn font size in px.
    clientPoint(key) {
      const box = canvas.getBoundingClientRect();
      return { x: box.left + X[key] * view.scale + view.x, y: box.top + Y[key] * view.scale + view.y };
    },
    fontPx: () => 12 * view.scale,
    visibleKeys: () => visibleNodes(worldView()),
  };
  window.glassgradExplorer = api;

  timings.indexed = performance.now() - timings.start;
  resizeCanvas();
  computeBounds();
  setGroups(data.groups || []);
  buildSidebar();
  buildDiffSection();
  initialView();
  draw();
  drawMinimapBase();
  timings.firstFrame = performance.now() - timings.start;
  document.body.setAttribute("data-ready", "true");
  window.dispatchEvent(new CustomEvent("glassgrad-explorer-ready", { detail: api }));
  }
})();
