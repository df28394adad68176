// glassgrad graph explorer: module boxes. With a recorded forward pass (data.moduleGroups and
// data.moduleFolds, from glassgrad.viz.explore(..., forward_log=log)) the graph is drawn as
// nested module boxes:
// an open module is a frame around its contents, a closed one a single box with its size and
// gradient norm, and identical repeated calls (data.folds) one box "×49" until unfolded. The
// layout is recomputed here whenever a box opens or closes: a layered layout (as the Python one
// for plain graphs) run inside each open module, innermost first, so a module is one block in
// its parent's layout. Which modules start open: as many as keep every label readable at fit.
"use strict";
const GlassgradModules = (function () {
  const CHAR_WIDTH = 7.2; // px per character of the 12px monospace font
  // Layers 24px apart (the plain layout's 42 made a 13-layer loss, e.g. PPO's, too tall to read
  // at fit on a 1400x850 window).
  const LINE_HEIGHT = 15, PAD_X = 10, PAD_Y = 7, GAP_X = 24, GAP_Y = 24, SWEEPS = 4;
  const FRAME_PAD = 12, FRAME_HEAD = 24; // an open module: padding and its label's band

  function textSize(lines) {
    const longest = Math.max(1, ...lines.map((line) => line.length));
    return [longest * CHAR_WIDTH + 2 * PAD_X, Math.max(lines.length, 1) * LINE_HEIGHT + 2 * PAD_Y];
  }

  function fmt(value) {
    if (typeof value !== "number") return String(value);
    const magnitude = Math.abs(value);
    if (magnitude !== 0 && (magnitude < 1e-3 || magnitude >= 1e5)) return value.toExponential(2);
    return String(Number(value.toPrecision(3)));
  }

  // Layered layout of one container: items (with [w, h]) and edges [a, b] between item indices.
  // Returns centres relative to the container's top-left and the container's content size.
  function layered(sizes, edges) {
    const n = sizes.length;
    const feeders = sizes.map(() => []), users = sizes.map(() => []), near = sizes.map(() => []);
    for (const [a, b] of edges) {
      feeders[b].push(a); users[a].push(b);
      near[a].push(b); near[b].push(a);
    }
    // 1. Layers: longest distance from an output (an item nothing consumes), outputs at the bottom.
    const waiting = users.map((list) => list.length);
    const ready = [];
    for (let i = 0; i < n; i++) if (!waiting[i]) ready.push(i);
    const depth = new Array(n).fill(0), seen = new Array(n).fill(false);
    const visit = (i) => {
      seen[i] = true;
      for (const f of feeders[i]) {
        depth[f] = Math.max(depth[f], depth[i] + 1);
        if (--waiting[f] === 0) ready.push(f);
      }
    };
    while (ready.length) visit(ready.pop());
    for (let i = 0; i < n; i++) if (!seen[i]) visit(i); // a cycle (never made by folds): cut it
    const deepest = Math.max(0, ...depth);
    const layers = Array.from({ length: deepest + 1 }, () => []);
    for (let i = 0; i < n; i++) layers[deepest - depth[i]].push(i);
    // 2. Order in each layer by the mean position of the neighbours, sweeping down and up.
    const position = new Array(n).fill(0);
    layers.forEach((layer) => layer.forEach((i, index) => { position[i] = index; }));
    for (let sweep = 0; sweep < SWEEPS; sweep++) {
      const sequence = sweep % 2 ? layers : [...layers].reverse();
      for (const layer of sequence) {
        for (const i of layer) {
          if (near[i].length) position[i] = near[i].reduce((s, j) => s + position[j], 0) / near[i].length;
        }
        layer.sort((a, b) => position[a] - position[b]);
        layer.forEach((i, index) => { position[i] = index; });
      }
    }
    // 3. x: pack each layer, then pull towards the neighbours without overlapping.
    const x = new Array(n).fill(0);
    for (const layer of layers) {
      let cursor = 0;
      for (const i of layer) { x[i] = cursor + sizes[i][0] / 2; cursor += sizes[i][0] + GAP_X; }
      for (const i of layer) x[i] -= cursor / 2;
    }
    const separate = (layer) => {
      if (!layer.length) return;
      const mean = layer.reduce((s, i) => s + x[i], 0) / layer.length;
      for (let k = 1; k < layer.length; k++) {
        const left = layer[k - 1], right = layer[k];
        const least = x[left] + (sizes[left][0] + sizes[right][0]) / 2 + GAP_X;
        if (x[right] < least) x[right] = least;
      }
      const shift = mean - layer.reduce((s, i) => s + x[i], 0) / layer.length;
      for (const i of layer) x[i] += shift;
    };
    for (let sweep = 0; sweep < SWEEPS; sweep++) {
      const sequence = sweep % 2 ? layers : [...layers].reverse();
      for (const layer of sequence) {
        for (const i of layer) {
          if (near[i].length) x[i] = near[i].reduce((s, j) => s + x[j], 0) / near[i].length;
        }
        separate(layer);
      }
    }
    // 4. y: each layer as tall as its tallest item.
    const y = new Array(n).fill(0);
    let cursor = 0;
    for (const layer of layers) {
      const height = Math.max(0, ...layer.map((i) => sizes[i][1]));
      for (const i of layer) y[i] = cursor + height / 2;
      cursor += height + GAP_Y;
    }
    let minX = Infinity, maxX = -Infinity;
    for (let i = 0; i < n; i++) {
      minX = Math.min(minX, x[i] - sizes[i][0] / 2);
      maxX = Math.max(maxX, x[i] + sizes[i][0] / 2);
    }
    if (!n) return { x, y, width: 0, height: 0 };
    for (let i = 0; i < n; i++) x[i] -= minX;
    return { x, y, width: maxX - minX, height: Math.max(0, cursor - GAP_Y) };
  }

  function create(data) {
    const nodes = data.nodes, groups = data.moduleGroups || [], folds = data.moduleFolds || [];
    const state = { open: new Set(), unfolded: new Set() };
    // Each node's groups, outermost first.
    const chains = nodes.map((node) => {
      const chain = [];
      for (let g = node.group; g !== null && g !== undefined; g = groups[g].parent) chain.push(g);
      return chain.reverse();
    });
    const keysOf = groups.map(() => []);
    nodes.forEach((_, key) => { for (const g of chains[key]) keysOf[g].push(key); });

    function folded(g) {
      const fold = groups[g].fold;
      return fold !== null && fold !== undefined && !state.unfolded.has(fold);
    }

    // The items a node sits in, from the top: [container, item] pairs; the last is what is
    // drawn for it. Items: "n<key>" a node, "g<id>" a module (a frame when open), "f<id>" a fold.
    function pathOf(key) {
      const path = [];
      let container = null;
      for (const g of chains[key]) {
        if (folded(g)) { path.push([container, "f" + groups[g].fold]); return path; }
        path.push([container, "g" + g]);
        if (!state.open.has(g)) return path;
        container = g;
      }
      path.push([container, "n" + key]);
      return path;
    }

    function boxLines(item) {
      const id = Number(item.slice(1));
      if (item[0] === "f") {
        const members = folds[id].groups.map((g) => groups[g]);
        const squares = members.reduce((s, g) => s + (g.gradNorm || 0) ** 2, 0);
        const lines = [folds[id].label, `${members[0].size} node${members[0].size === 1 ? "" : "s"} each`];
        if (members.some((g) => g.gradNorm !== null)) lines.push("‖g‖ " + fmt(Math.sqrt(squares)));
        return lines;
      }
      const group = groups[id];
      const lines = [group.label, `${group.size} node${group.size === 1 ? "" : "s"}`];
      if (group.gradNorm !== null) lines.push("‖g‖ " + fmt(group.gradNorm) + (group.problems ? ` · ${group.problems} problem${group.problems === 1 ? "" : "s"}` : ""));
      else if (group.problems) lines.push(`${group.problems} without gradient`);
      return lines;
    }

    // The whole drawing for the current state: node centres, boxes (closed modules, folds and
    // frames of open modules) and the folds that feed themselves (a recurrence).
    function layout() {
      const paths = nodes.map((_, key) => pathOf(key));
      const containers = new Map(); // container id (null: the top) -> {items: Map item -> index, edges}
      const containerOf = (id) => {
        if (!containers.has(id)) containers.set(id, { items: new Map(), list: [], edges: new Set() });
        return containers.get(id);
      };
      containerOf(null);
      for (const path of paths) {
        for (const [container, item] of path) {
          const entry = containerOf(container);
          if (!entry.items.has(item)) { entry.items.set(item, entry.list.length); entry.list.push(item); }
        }
      }
      const loops = new Set();
      for (const edge of data.edges) {
        if (edge.kind === "saved") continue;
        const a = paths[edge.src], b = paths[edge.dst];
        let i = 0;
        while (i < a.length && i < b.length && a[i][1] === b[i][1]) i++;
        if (i === a.length || i === b.length) {
          const last = a[a.length - 1][1];
          // One fold box: a step feeding the next is its recurrence.
          if (last[0] === "f" && chains[edge.src][a.length - 1] !== chains[edge.dst][b.length - 1]) loops.add(last);
          continue;
        }
        const entry = containers.get(a[i][0]);
        entry.edges.add(entry.items.get(a[i][1]) + "," + entry.items.get(b[i][1]));
      }
      // Lay out the open modules innermost first: each is then one block in its parent.
      const placed = new Map(); // container -> {x, y, width, height} of its items
      const sizeOf = new Map();
      const order = [...containers.keys()].sort((p, q) => depthOf(q) - depthOf(p));
      for (const id of order) {
        const entry = containers.get(id);
        const sizes = entry.list.map((item) => {
          if (item[0] === "n") return [nodes[Number(item.slice(1))].w, nodes[Number(item.slice(1))].h];
          const g = Number(item.slice(1));
          if (item[0] === "g" && state.open.has(g) && containers.has(g)) {
            const inner = placed.get(g);
            const head = textSize([groups[g].label])[0];
            return [Math.max(inner.width, head) + 2 * FRAME_PAD, inner.height + FRAME_PAD + FRAME_HEAD];
          }
          return textSize(boxLines(item));
        });
        const edges = [...entry.edges].map((text) => text.split(",").map(Number));
        const result = layered(sizes, edges);
        placed.set(id, result);
        sizeOf.set(id, sizes);
      }
      // Absolute positions, from the top container down.
      const nodeBoxes = new Map(), boxes = [];
      const place = (id, left, top) => {
        const entry = containers.get(id), result = placed.get(id), sizes = sizeOf.get(id);
        entry.list.forEach((item, index) => {
          const [w, h] = sizes[index];
          const cx = left + result.x[index], cy = top + result.y[index];
          if (item[0] === "n") { nodeBoxes.set(Number(item.slice(1)), { x: cx, y: cy }); return; }
          const ident = Number(item.slice(1));
          const open = item[0] === "g" && state.open.has(ident) && containers.has(ident);
          const keys = item[0] === "f" ? folds[ident].groups.flatMap((g) => keysOf[g]) : keysOf[ident];
          boxes.push({
            item, kind: open ? "frame" : item[0] === "f" ? "fold" : "group", id: ident, keys,
            label: open ? groups[ident].label : boxLines(item)[0],
            lines: open ? [groups[ident].label] : boxLines(item),
            x0: cx - w / 2, y0: cy - h / 2, x1: cx + w / 2, y1: cy + h / 2,
            parent: id, loop: loops.has(item),
          });
          if (open) place(ident, cx - w / 2 + FRAME_PAD, cy - h / 2 + FRAME_HEAD);
        });
      };
      place(null, 0, 0);
      const top = placed.get(null);
      return { nodes: nodeBoxes, boxes, width: top.width, height: top.height };
    }

    function depthOf(id) {
      let depth = 0;
      for (let g = id; g !== null && g !== undefined; g = groups[g].parent) depth++;
      return depth;
    }

    // The scale at which `result` fits a canvas of width x height (as the explorer's fit()).
    function fitScale(result, width, height, margin) {
      return Math.min((width - 2 * margin) / Math.max(result.width, 1), (height - 2 * margin) / Math.max(result.height, 1));
    }

    // Open modules, outermost and biggest first, while the whole drawing still fits the canvas
    // at `minScale` or more (so every label stays readable); folds stay folded.
    function chooseDefault(width, height, margin, minScale) {
      state.open.clear();
      state.unfolded.clear();
      const queue = groups.filter((g) => g.parent === null).map((g) => g.id);
      while (queue.length) {
        queue.sort((a, b) => depthOf(a) - depthOf(b) || groups[b].size - groups[a].size);
        const g = queue.shift();
        if (folded(g)) continue;
        state.open.add(g);
        if (fitScale(layout(), width, height, margin) < minScale) {
          state.open.delete(g);
          continue;
        }
        queue.push(...groups[g].children);
      }
    }

    return { state, layout, chooseDefault, fitScale, groups, folds, keysOf, chains };
  }

  return { create, layered, textSize };
})();

// ---- wiring to the explorer: module boxes replace the plain layout when modules are known ----
(function () {
  const MIN_LABEL_PX = 9; // the smallest label (11px shape lines) at the default fit
  const MARGIN = 30; // the explorer's fit() margin

  function attach(api) {
    const data = api.data;
    if (!data.moduleGroups || !data.moduleGroups.length) return;
    const modules = GlassgradModules.create(data);
    const groups = modules.groups;
    const minScale = MIN_LABEL_PX / 11;

    function apply() {
      const result = modules.layout();
      const positions = new Map(result.nodes);
      const boxes = result.boxes.map((box) => {
        if (box.kind !== "frame") {
          // Hidden nodes sit at their box's centre, so edges to them end there.
          for (const key of box.keys) positions.set(key, { x: (box.x0 + box.x1) / 2, y: (box.y0 + box.y1) / 2 });
        }
        const group = box.kind === "fold" ? groups[modules.folds[box.id].groups[0]] : groups[box.id];
        return {
          id: box.item, label: box.label, lines: box.lines, keys: box.keys, kind: box.kind,
          collapsed: box.kind !== "frame", x0: box.x0, y0: box.y0, x1: box.x1, y1: box.y1,
          header: box.kind === "frame" ? 24 : 0, loop: box.loop, module: box.id,
          problems: group.problems,
        };
      });
      api.relayout(positions, boxes);
      return result;
    }

    function fitReadable(focus) {
      api.fit();
      if (api.view.scale >= minScale || !focus) return;
      // Too big to read whole: show the box that changed at a readable scale.
      const size = api.canvasSize();
      api.view.scale = Math.max(minScale, 0.9);
      api.view.x = size.width / 2 - ((focus.x0 + focus.x1) / 2) * api.view.scale;
      api.view.y = size.height / 2 - ((focus.y0 + focus.y1) / 2) * api.view.scale;
      api.scheduleDraw();
    }

    function boxOf(item) {
      return api.groups().find((group) => group.id === item) || null;
    }

    function panel(kind, id) {
      document.getElementById("panel-body").replaceChildren(...summary(kind, id, true));
    }

    // What the panel says about a module box: size, parameters inside and their gradient, and
    // the actions (expand, collapse, unfold, fold again).
    function summary(kind, id, header) {
      const group = kind === "fold" ? groups[modules.folds[id].groups[0]] : groups[id];
      const { el, fmt } = api;
      const body = [];
      if (header) body.push(el("h3", { text: kind === "fold" ? modules.folds[id].label : group.label }), el("div", { class: "kind", text: kind === "fold" ? "repeated module calls, folded" : group.called ? "module call" : "container module" }));
      if (kind === "fold") body.push(el("p", { text: `${modules.folds[id].groups.length} calls with identical graphs (same ops, shapes and wiring), ${group.size} nodes each: click the box to see each call` }));
      else body.push(el("p", { text: `${group.size} node${group.size === 1 ? "" : "s"} of this graph inside` + (group.calls > 1 ? `; call ${group.callNumber} of ${group.calls}` : "") }));
      const members = kind === "fold" ? modules.folds[id].groups.map((g) => groups[g]) : [group];
      const params = members.reduce((s, g) => s + g.params, 0), problems = members.reduce((s, g) => s + g.problems, 0);
      const norms = members.filter((g) => g.gradNorm !== null);
      if (params) {
        const norm = norms.length ? Math.sqrt(norms.reduce((s, g) => s + g.gradNorm ** 2, 0)) : null;
        body.push(el("h4", { text: "parameters inside" }));
        body.push(el("p", { class: problems ? "bad-text" : "", text: `${params} parameter${params === 1 ? "" : "s"}` + (norm !== null ? `, gradient norm ${fmt(norm)}` : ", no gradient recorded") + (problems ? `; ${problems} without a usable gradient` : "") }));
      }
      const actions = [];
      if (kind === "frame") actions.push(el("button", { "data-action": "collapse", text: "collapse", onclick: () => toggle("g" + id) }));
      if (kind === "group") actions.push(el("button", { "data-action": "expand", text: "expand", onclick: () => toggle("g" + id) }));
      if (kind === "fold" && !modules.state.unfolded.has(id)) actions.push(el("button", { "data-action": "unfold", text: "show each call", onclick: () => toggle("f" + id) }));
      if (kind === "fold" && modules.state.unfolded.has(id)) actions.push(el("button", { "data-action": "fold", text: "fold the calls again", onclick: () => refold(id) }));
      if (kind !== "fold" && group.fold !== null) {
        const fold = group.fold;
        actions.push(el("button", { "data-action": "fold", text: `fold the ${modules.folds[fold].groups.length} calls again`, onclick: () => refold(fold) }));
      }
      body.push(el("p", {}, actions));
      return body;
    }

    function refold(fold) {
      modules.state.unfolded.delete(fold);
      apply();
      fitReadable(boxOf("f" + fold));
      panel("fold", fold);
    }

    // Open or close a module (or unfold a fold); the layout follows.
    function toggle(item) {
      const id = Number(item.slice(1));
      let kind;
      if (item[0] === "f") { modules.state.unfolded.add(id); kind = "fold"; }
      else if (modules.state.open.has(id)) { modules.state.open.delete(id); kind = "group"; }
      else { modules.state.open.add(id); kind = "frame"; }
      apply();
      fitReadable(boxOf(item));
      panel(kind, id);
    }

    const plainGroupClick = api.onGroupClick;
    api.onGroupClick = (group) => (group.module === undefined ? plainGroupClick(group) : toggle(group.id));
    // A module picked in the side bar: open what is around its first call so its box shows,
    // and add its gradient summary to the panel.
    api.onModuleSelect = (module) => {
      const gid = groups.findIndex((g) => g.name === module.name);
      if (gid < 0) return [];
      for (let g = groups[gid].parent; g !== null; g = groups[g].parent) {
        modules.state.open.add(g);
        if (groups[g].fold !== null) modules.state.unfolded.add(groups[g].fold);
      }
      apply();
      const folded = groups[gid].fold !== null && !modules.state.unfolded.has(groups[gid].fold);
      const kind = folded ? "fold" : modules.state.open.has(gid) ? "frame" : "group";
      return summary(kind, folded ? groups[gid].fold : gid, false);
    };

    // A node searched for, picked from a list or a parameter's: open the boxes around it.
    api.onReveal = (key) => {
      const chain = modules.chains[key];
      const closed = chain.filter((g) => !modules.state.open.has(g) || (groups[g].fold !== null && !modules.state.unfolded.has(groups[g].fold)));
      if (!closed.length) return;
      for (const g of chain) {
        modules.state.open.add(g);
        if (groups[g].fold !== null) modules.state.unfolded.add(groups[g].fold);
      }
      apply();
    };

    const size = api.canvasSize();
    modules.chooseDefault(size.width, size.height, MARGIN, minScale);
    const result = apply();
    api.fit();
    const at = result.nodes;
    const roots = data.roots.filter((key) => at.has(key)).map((key) => ({ x: at.get(key).x, bottom: at.get(key).y + data.nodes[key].h / 2 }));
    if (api.view.scale < minScale && roots.length) {
      // Unreadable at fit even with every module closed (nodes outside modules make it tall):
      // start readable at the outputs, at the bottom, as plain big graphs do; "fit" shows all.
      api.view.scale = minScale;
      api.view.x = size.width / 2 - (roots.reduce((sum, r) => sum + r.x, 0) / roots.length) * minScale;
      api.view.y = size.height - MARGIN - Math.max(...roots.map((r) => r.bottom)) * minScale;
      api.scheduleDraw();
    }
    api.modules = {
      state: modules.state, toggle, apply, groups, folds: modules.folds,
      // The smallest label on screen, in px: shape lines are drawn at 11px.
      minLabelPx: () => 11 * api.view.scale,
    };
  }

  window.addEventListener("glassgrad-explorer-ready", (event) => attach(event.detail));
})();
