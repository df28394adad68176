// glassgrad graph explorer: draws the graph computed by glassgrad.viz.explore (positions,
// statistics and diagnoses come from Python in the #graph-data JSON) and handles pan, zoom,
// search, selection and path highlighting. No libraries, no network.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("graph-data").textContent);
  const SVG_NS = "http://www.w3.org/2000/svg";
  const svg = document.getElementById("canvas");
  const viewport = document.getElementById("viewport");
  const edgeLayer = document.getElementById("edges");
  const nodeLayer = document.getElementById("nodes");
  const panelBody = document.getElementById("panel-body");
  const searchBox = document.getElementById("search");
  const searchCount = document.getElementById("search-count");

  const nodes = data.nodes;
  const edges = data.edges;
  const outEdges = nodes.map(() => []);
  const inEdges = nodes.map(() => []);
  edges.forEach((edge, index) => {
    outEdges[edge.src].push(index);
    inEdges[edge.dst].push(index);
  });
  const paramByNode = new Map();
  data.params.forEach((param) => {
    if (param.nodeKey !== null) paramByNode.set(param.nodeKey, param);
  });

  const view = { scale: 1, x: 0, y: 0 };
  let selectedKey = null;
  let matches = [];
  let matchIndex = -1;
  const nodeElements = [];
  const edgeElements = [];

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

  function svgEl(tag, attrs) {
    const element = document.createElementNS(SVG_NS, tag);
    for (const [name, value] of Object.entries(attrs || {})) element.setAttribute(name, value);
    return element;
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

  // ---- drawing -----------------------------------------------------------------------
  function edgePath(edge) {
    const a = nodes[edge.src];
    const b = nodes[edge.dst];
    const x1 = a.x;
    const y1 = a.y + a.h / 2;
    const x2 = b.x;
    const y2 = b.y - b.h / 2;
    const bend = Math.max(18, Math.abs(y2 - y1) / 2);
    return `M${x1},${y1} C${x1},${y1 + bend} ${x2},${y2 - bend} ${x2},${y2}`;
  }

  function nodeHasBadGrad(node) {
    if (node.backward && node.backward.sent.some(isBadStats)) return true;
    return isBadStats(node.grad);
  }

  function draw() {
    edges.forEach((edge) => {
      const path = svgEl("path", { d: edgePath(edge), class: "edge " + edge.kind });
      edgeLayer.append(path);
      edgeElements.push(path);
    });
    nodes.forEach((node) => {
      const classes = ["node", "kind-" + node.kind];
      if (node.nanOrigin) classes.push("nan-origin");
      if (nodeHasBadGrad(node)) classes.push("bad-grad");
      const group = svgEl("g", {
        class: classes.join(" "),
        "data-key": node.key,
        "data-label": node.label,
        transform: `translate(${node.x - node.w / 2},${node.y - node.h / 2})`,
      });
      const title = svgEl("title", {});
      title.textContent = node.lines.join(" ");
      group.append(title);
      group.append(svgEl("rect", { width: node.w, height: node.h }));
      if (classes.includes("bad-grad")) {
        const mark = svgEl("circle", { cx: node.w - 5, cy: 5, r: 4, class: "bad-mark" });
        const tip = svgEl("title", {});
        tip.textContent = "NaN/Inf in the gradient";
        mark.append(tip);
        group.append(mark);
      }
      node.lines.forEach((line, index) => {
        const text = svgEl("text", {
          x: node.w / 2,
          y: 7 + 15 * index + 11,
          "text-anchor": "middle",
          class: index === 0 ? "main" : "sub",
        });
        text.textContent = line;
        group.append(text);
      });
      group.addEventListener("click", (event) => {
        event.stopPropagation();
        select(node.key);
      });
      nodeLayer.append(group);
      nodeElements.push(group);
    });
  }

  // ---- pan and zoom ------------------------------------------------------------------
  function applyView() {
    viewport.setAttribute("transform", `translate(${view.x},${view.y}) scale(${view.scale})`);
  }

  function canvasSize() {
    const box = svg.getBoundingClientRect();
    return { width: box.width || 800, height: box.height || 600 };
  }

  // Fit the given nodes (all by default) into the canvas.
  function fit(keys) {
    const chosen = Array.isArray(keys) ? keys.map((key) => nodes[key]) : nodes;
    if (!chosen.length) return;
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    chosen.forEach((n) => {
      minX = Math.min(minX, n.x - n.w / 2);
      maxX = Math.max(maxX, n.x + n.w / 2);
      minY = Math.min(minY, n.y - n.h / 2);
      maxY = Math.max(maxY, n.y + n.h / 2);
    });
    const size = canvasSize();
    const margin = 30;
    const scale = Math.min(
      (size.width - 2 * margin) / Math.max(maxX - minX, 1),
      (size.height - 2 * margin) / Math.max(maxY - minY, 1),
      1.6
    );
    view.scale = Math.max(scale, 0.02);
    view.x = size.width / 2 - ((minX + maxX) / 2) * view.scale;
    view.y = size.height / 2 - ((minY + maxY) / 2) * view.scale;
    applyView();
  }

  // Big graphs fitted whole would have unreadable text: start readable, at the root (the
  // loss, at the bottom), and let "fit" show everything.
  const READABLE_SCALE = 0.75;
  function initialView() {
    fit();
    if (view.scale >= READABLE_SCALE || !data.roots.length) return;
    const size = canvasSize();
    const roots = data.roots.map((key) => nodes[key]);
    const rootX = roots.reduce((sum, n) => sum + n.x, 0) / roots.length;
    const rootBottom = Math.max(...roots.map((n) => n.y + n.h / 2));
    view.scale = READABLE_SCALE;
    view.x = size.width / 2 - rootX * view.scale;
    view.y = size.height - 30 - rootBottom * view.scale;
    applyView();
  }

  // Fit `keys`; if that makes text unreadable, show `focusKey` at a readable zoom instead.
  function fitOrFocus(keys, focusKey) {
    fit(keys);
    if (view.scale >= READABLE_SCALE) return;
    view.scale = READABLE_SCALE;
    centerOn(focusKey);
  }

  function zoomAt(factor, cx, cy) {
    const next = Math.min(Math.max(view.scale * factor, 0.02), 8);
    const ratio = next / view.scale;
    view.x = cx - (cx - view.x) * ratio;
    view.y = cy - (cy - view.y) * ratio;
    view.scale = next;
    applyView();
  }

  function centerOn(key) {
    const node = nodes[key];
    const size = canvasSize();
    if (view.scale < READABLE_SCALE) view.scale = 0.9;
    view.x = size.width / 2 - node.x * view.scale;
    view.y = size.height / 2 - node.y * view.scale;
    applyView();
  }

  let drag = null;
  let lastDragMoved = false;
  svg.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    drag = { x: event.clientX, y: event.clientY, vx: view.x, vy: view.y, moved: false };
    svg.classList.add("panning");
  });
  window.addEventListener("pointermove", (event) => {
    if (!drag) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    view.x = drag.vx + dx;
    view.y = drag.vy + dy;
    applyView();
  });
  window.addEventListener("pointerup", () => {
    lastDragMoved = drag ? drag.moved : false;
    drag = null;
    svg.classList.remove("panning");
  });
  svg.addEventListener(
    "wheel",
    (event) => {
      event.preventDefault();
      const box = svg.getBoundingClientRect();
      zoomAt(Math.exp(-event.deltaY * 0.0015), event.clientX - box.left, event.clientY - box.top);
    },
    { passive: false }
  );
  svg.addEventListener("click", (event) => {
    if (event.target === svg && !lastDragMoved) clearHighlight();
  });

  // ---- highlighting ------------------------------------------------------------------
  function clearClasses(...names) {
    nodeElements.forEach((element) => element.classList.remove(...names));
    edgeElements.forEach((element) => element.classList.remove(...names));
  }

  function clearHighlight() {
    clearClasses("on-path", "dimmed", "touching", "selected");
    document.querySelectorAll("#param-list li.active, #module-list li.active").forEach((li) => li.classList.remove("active"));
    selectedKey = null;
  }

  // Every node downstream of `start` lies on a path to a root (the graph holds nothing else).
  function highlightPaths(start) {
    clearClasses("on-path", "dimmed", "touching");
    const onPath = new Set([start]);
    const stack = [start];
    while (stack.length) {
      const key = stack.pop();
      for (const edgeIndex of outEdges[key]) {
        const next = edges[edgeIndex].dst;
        if (!onPath.has(next)) {
          onPath.add(next);
          stack.push(next);
        }
      }
    }
    nodeElements.forEach((element, key) => {
      element.classList.add(onPath.has(key) ? "on-path" : "dimmed");
    });
    edgeElements.forEach((element, index) => {
      const edge = edges[index];
      const hot = onPath.has(edge.src) && onPath.has(edge.dst);
      element.classList.add(hot ? "on-path" : "dimmed");
    });
    return onPath;
  }

  // Light up a set of nodes (and the edges among them), dim the rest.
  function highlightSet(keys) {
    clearClasses("on-path", "dimmed", "touching");
    const chosen = new Set(keys);
    nodeElements.forEach((element, key) => element.classList.add(chosen.has(key) ? "on-path" : "dimmed"));
    edgeElements.forEach((element, index) => {
      const edge = edges[index];
      element.classList.add(chosen.has(edge.src) && chosen.has(edge.dst) ? "on-path" : "dimmed");
    });
  }

  function selectModule(module, listItem) {
    document.querySelectorAll("#param-list li.active, #module-list li.active").forEach((li) => li.classList.remove("active"));
    if (listItem) listItem.classList.add("active");
    highlightSet(module.keys);
    if (module.keys.length) fitOrFocus(module.keys, module.keys[module.keys.length - 1]);
    const body = [
      el("h3", { text: module.label }),
      el("div", { class: "kind", text: "module" }),
      el("p", { text: module.calls ? `called ${module.calls} time${module.calls === 1 ? "" : "s"}` + (module.gradEnabled ? "" : ", always with grad mode off (no_grad)") : "never called in the recorded forward pass" }),
      el("p", { text: `${module.keys.length} node${module.keys.length === 1 ? "" : "s"} of this graph created by it (innermost module)` }),
    ];
    const list = el("ul", {}, module.keys.map((key) => el("li", {}, [nodeLink(key)])));
    body.push(list);
    panelBody.replaceChildren(...body);
  }

  function select(key) {
    if (selectedKey !== null) nodeElements[selectedKey].classList.remove("selected");
    edgeElements.forEach((element) => element.classList.remove("touching"));
    selectedKey = key;
    nodeElements[key].classList.add("selected");
    for (const index of inEdges[key].concat(outEdges[key])) {
      edgeElements[index].classList.add("touching");
    }
    renderPanel(key);
  }

  function selectParam(param, listItem) {
    document.querySelectorAll("#param-list li.active, #module-list li.active").forEach((li) => li.classList.remove("active"));
    if (listItem) listItem.classList.add("active");
    if (param.nodeKey === null) {
      clearClasses("on-path", "dimmed", "touching", "selected");
      selectedKey = null;
      renderParamOnly(param);
      return;
    }
    const onPath = highlightPaths(param.nodeKey);
    select(param.nodeKey);
    fitOrFocus([...onPath], param.nodeKey);
    panelBody.prepend(
      el("p", { class: "hint", text: `${onPath.size} nodes on the paths from ${param.name} to the root` })
    );
  }

  // ---- search ------------------------------------------------------------------------
  function runSearch() {
    const query = searchBox.value.trim().toLowerCase();
    nodeElements.forEach((element) => element.classList.remove("match"));
    matches = [];
    matchIndex = -1;
    if (query) {
      nodes.forEach((node) => {
        if (node.search.includes(query)) matches.push(node.key);
      });
      matches.forEach((key) => nodeElements[key].classList.add("match"));
    }
    searchCount.textContent = query ? `${matches.length} match${matches.length === 1 ? "" : "es"}` : "";
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
    if (param && param.reason !== "ok") body.push(el("p", { class: "bad-text", text: param.detail }));
  }

  function renderPanel(key) {
    const node = nodes[key];
    const body = [el("h3", { text: nodeTitle(key) })];
    if (node.kind === "op") renderOp(node, body);
    else renderTensor(node, body);
    panelBody.replaceChildren(...body);
  }

  function renderParamOnly(param) {
    panelBody.replaceChildren(
      el("h3", { text: param.name }),
      el("div", { class: "kind", text: "parameter, not in this graph" }),
      el("p", { class: "mono", text: `${shapeText(param.shape)} ${param.dtype}` }),
      el("p", { class: "bad-text", text: param.reason }),
      el("p", { text: param.detail }),
      ...(param.evidenceKey !== null ? [el("p", {}, ["seen at: ", nodeLink(param.evidenceKey)])] : [])
    );
  }

  // ---- side bar ----------------------------------------------------------------------
  function badgeFor(param) {
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
      const item = el("li", { "data-param": param.name, title: param.detail }, [
        el("span", { class: "pname", text: param.name }),
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
        const badge = !module.calls
          ? el("span", { class: "badge warn", text: "not called" })
          : !module.gradEnabled
            ? el("span", { class: "badge warn", text: "no_grad" })
            : null;
        const item = el("li", { "data-module": module.name, title: module.label }, [
          el("span", { class: "pname", text: module.name === "" ? module.label : `${module.name} (${module.type})` }),
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
      if (param.reason === "ok") return;
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
  window.addEventListener("resize", () => fit());

  draw();
  buildSidebar();
  initialView();
  document.body.setAttribute("data-ready", "true");
})();
