// pmiprof report --html: the page's script (docs/html.md).  The data
// (html.c) holds time buckets of bucket_ns; a selection is a range of whole
// buckets [b0, b1], the same windows as `pmiprof report --time
// b0*W ns,(b1+1)*W-1 ns`, and every number shown for it is summed from the
// buckets' cells: per (bucket, function) and per (bucket, call stack).
'use strict';
(function () {
	const D = JSON.parse(document.getElementById('pmiprof-data').textContent);
	const W = D.bucket_ns, NB = Math.max(D.buckets, 1), NEV = D.events.length;

	// Cells: bucket column delta-coded; start[b] = first cell of bucket b.
	function cells(c) {
		const n = c.i.length, start = new Uint32Array(NB + 2);
		let b = 0;
		const bk = new Uint32Array(n);
		for (let k = 0; k < n; k++) { b += c.b[k]; bk[k] = b; }
		let k = 0;
		for (let x = 0; x <= NB; x++) { while (k < n && bk[k] < x) k++; start[x] = k; }
		start[NB + 1] = n;
		return { bk, id: c.i, n: c.n, c: c.c, start };
	}
	const TOT = cells(D.totals), FN = cells(D.fn), ST = cells(D.st);
	const ANN = D.ann || { fns: [], aid: [] }, AC = D.ac ? cells(D.ac) : null;
	const annBySym = new Map(ANN.fns.map((f, i) => [f.sym, i]));

	function fmtNum(v) {
		if (!isFinite(v)) return '';
		if (Number.isInteger(v)) return v.toLocaleString('en-US');
		return v.toPrecision(4);
	}
	function metricValue(m, c) {
		const a = c[m.a], b = m.b >= 0 ? c[m.b] : 1;
		if (m.kind === 'event') return a;
		if (b === 0) return NaN;
		switch (m.kind) {
		case 'ratio': return a / b;
		case 'perkilo': return a * 1000 / b;
		case 'percent': return a * 100 / b;
		case 'persecond': return a * 1e9 / b;
		}
		return a;
	}
	// Wilson score 95% interval for k of n, percent (profile.c's wilson95()).
	function wilson95(k, n) {
		if (!n) return [0, 0];
		const z = 1.959963984540054, p = k / n, z2 = z * z;
		const den = 1 + z2 / n, c = (p + z2 / (2 * n)) / den;
		const h = z * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / den;
		return [Math.max(0, c - h) * 100, Math.min(1, c + h) * 100];
	}

	// ---- timeline: per bucket, windows/s and each metric over the in-stats windows
	const xs = new Float64Array(NB), perBucket = [], allSums = [], statSums = [];
	for (let b = 0; b < NB; b++) {
		xs[b] = b * W / 1e9;
		allSums.push(new Array(NEV).fill(0));
		statSums.push(new Array(NEV).fill(0));
		perBucket.push(0);
	}
	for (let k = 0; k < TOT.id.length; k++) {
		const b = TOT.bk[k], dst = TOT.id[k] === 0 ? allSums[b] : statSums[b];
		if (TOT.id[k] === 0) perBucket[b] = TOT.n[k];
		for (let e = 0; e < NEV; e++) dst[e] += TOT.c[e][k];
	}
	const series = [{
		name: 'windows per second', unit: 'windows/s',
		values: perBucket.map(n => n * 1e9 / W),
	}];
	function unitOf(m) {
		return m.kind === 'ratio' ? (m.name === 'ipc' ? 'instructions per cycle' : 'ratio')
			: m.kind === 'perkilo' ? 'per 1000 instructions' : m.kind === 'percent' ? '%'
			: m.kind === 'persecond' ? 'per s' : 'count';
	}
	for (const m of D.metrics)
		series.push({ name: m.name, unit: unitOf(m), values: statSums.map(c => metricValue(m, c)) });

	// ---- phases and code regions (html_marks.c): bands behind every time chart
	const PH = D.phases && D.phases.runs ? D.phases : { k: 0, runs: [], names: [] };
	const RG = D.regions || { names: [], bands: [] };
	const PHASE_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2',
		'#7f7f7f', '#bcbd22', '#17becf'];
	const REGION_COLORS = ['#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#ff7f0e'];
	const phaseColor = p => PHASE_COLORS[p % PHASE_COLORS.length];
	const regionColor = r => REGION_COLORS[r % REGION_COLORS.length];
	const showMarks = { phases: true, regions: true };
	function rgba(hex, a) {
		const n = parseInt(hex.slice(1), 16);
		return 'rgba(' + (n >> 16) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + a + ')';
	}
	function drawMarks(u) {
		const ctx = u.ctx, bb = u.bbox, px = devicePixelRatio || 1;
		function band(t0, t1, color, alpha, y, h) {
			const l = Math.max(u.valToPos(t0 / 1e9, 'x', true), bb.left);
			const r = Math.min(u.valToPos(t1 / 1e9, 'x', true), bb.left + bb.width);
			if (r < l) return;
			ctx.fillStyle = rgba(color, alpha);
			ctx.fillRect(l, y, Math.max(r - l, px), h);
		}
		ctx.save();
		if (showMarks.regions)
			for (const [b, e, r] of RG.bands) {
				band(b, e, regionColor(r), 0.15, bb.top, bb.height);
				band(b, e, regionColor(r), 0.9, bb.top, 4 * px);
			}
		if (showMarks.phases)
			for (const [b, e, p] of PH.runs) {
				band(b, e, phaseColor(p), 0.08, bb.top, bb.height);
				band(b, e, phaseColor(p), 0.9, bb.top + bb.height - 6 * px, 6 * px);
			}
		ctx.restore();
	}

	const sel = { b0: 0, b1: NB - 1 };
	const plots = [];
	const tl = document.getElementById('timeline');
	const sync = uPlot.sync('pmiprof');
	let fromSelect = false;
	function width() { return Math.max(600, Math.min(tl.clientWidth || 1200, 1800)); }
	function timePlot(title, ylabel, ser, data, el, extra) {
		const opts = Object.assign({
			title, width: width(), height: 200,
			cursor: { drag: { x: true, y: false, setScale: false }, sync: { key: sync.key } },
			scales: { x: { time: false } },
			axes: [{ label: 'seconds since the start' }, { label: ylabel, size: 70 }],
			legend: { show: true },
			series: [{ label: 's' }].concat(ser),
			hooks: { drawClear: [drawMarks], setSelect: [u => {
				if (fromSelect || u.select.width < 2) return;
				const t0 = u.posToVal(u.select.left, 'x'), t1 = u.posToVal(u.select.left + u.select.width, 'x');
				selectSeconds(t0, t1);
			}] },
		}, extra || {});
		const u = new uPlot(opts, [Array.from(xs)].concat(data), el);
		sync.sub(u);
		plots.push(u);
		return u;
	}
	for (const s of series) {
		const y = Array.from(s.values, v => (isFinite(v) ? v : null));
		timePlot(s.name + (s.unit ? ' (' + s.unit + ')' : '') + ' per bucket of ' + fmtTime(W) +
			(D.time_based ? ', time-based windows' : ''), s.unit,
			[{ label: s.name, stroke: '#1565c0', width: 1, fill: 'rgba(21,101,192,0.12)', spanGaps: false }],
			[y], tl);
	}

	// ---- top functions over time: each bucket's windows by function, stacked
	const TOPN = 8, fnAll = new Map();
	for (let k = 0; k < FN.id.length; k++) fnAll.set(FN.id[k], (fnAll.get(FN.id[k]) || 0) + FN.n[k]);
	const topIds = Array.from(fnAll.keys()).sort((a, b) => fnAll.get(b) - fnAll.get(a)).slice(0, TOPN);
	const TOP_COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7'];
	{
		const share = topIds.map(() => new Float64Array(NB)), col = new Map(topIds.map((id, j) => [id, j]));
		for (let k = 0; k < FN.id.length; k++) {
			const j = col.get(FN.id[k]);
			if (j !== undefined) share[j][FN.bk[k]] += FN.n[k];
		}
		const cum = [], acc = new Float64Array(NB);
		for (let j = 0; j < topIds.length; j++) {
			for (let b = 0; b < NB; b++) acc[b] += perBucket[b] ? share[j][b] * 100 / perBucket[b] : 0;
			cum.push(Array.from(acc, (v, b) => (perBucket[b] ? v : null)));
		}
		const ser = [{ label: 'other functions', stroke: '#999', fill: '#ddd', width: 1 }], data = [perBucket.map(n => (n ? 100 : null))];
		for (let j = topIds.length - 1; j >= 0; j--) {
			ser.push({ label: D.syms[topIds[j]][0], stroke: TOP_COLORS[j], fill: TOP_COLORS[j], width: 1 });
			data.push(cum[j]);
		}
		timePlot('top ' + topIds.length + ' functions: share of each bucket\'s windows (%), stacked', '% of windows',
			ser, data, document.getElementById('topfn'), { legend: { show: false }, scales: { x: { time: false }, y: { range: [0, 100] } } });
		const lg = document.getElementById('topfn-legend');
		topIds.forEach((id, j) => {
			const sp = document.createElement('span');
			sp.className = 'key';
			sp.innerHTML = '<span class="swatch"></span>';
			sp.firstChild.style.background = TOP_COLORS[j];
			sp.appendChild(document.createTextNode(D.syms[id][0] + ' ' + (100 * fnAll.get(id) / (D.windows || 1)).toFixed(1) + '%'));
			lg.appendChild(sp);
		});
		const o = document.createElement('span');
		o.className = 'key';
		o.innerHTML = '<span class="swatch" style="background:#ddd"></span>other functions';
		lg.appendChild(o);
	}
	function fmtTime(ns) {
		if (ns >= 1e9) return +(ns / 1e9).toPrecision(4) + ' s';
		if (ns >= 1e6) return +(ns / 1e6).toPrecision(4) + ' ms';
		if (ns >= 1e3) return +(ns / 1e3).toPrecision(4) + ' us';
		return ns + ' ns';
	}
	function showSelectionBands() {
		fromSelect = true;
		for (const u of plots) {
			const l = u.valToPos(sel.b0 * W / 1e9, 'x'), r = u.valToPos((sel.b1 + 1) * W / 1e9, 'x');
			if (sel.b0 === 0 && sel.b1 === NB - 1) u.setSelect({ left: 0, width: 0, top: 0, height: 0 }, false);
			else u.setSelect({ left: l, width: Math.max(r - l, 1), top: 0, height: u.over.clientHeight }, false);
		}
		fromSelect = false;
	}
	function setX(a, b) { for (const u of plots) u.setScale('x', { min: a, max: b }); showSelectionBands(); }
	document.getElementById('zoom-sel').onclick = () => setX(sel.b0 * W / 1e9, (sel.b1 + 1) * W / 1e9);
	document.getElementById('zoom-reset').onclick = () => setX(0, NB * W / 1e9);
	function pan(dir) {
		const sc = plots[0].scales.x, d = (sc.max - sc.min) * 0.25 * dir;
		setX(sc.min + d, sc.max + d);
	}
	document.getElementById('pan-left').onclick = () => pan(-1);
	document.getElementById('pan-right').onclick = () => pan(1);
	document.getElementById('sel-all').onclick = () => select(0, NB - 1);
	document.getElementById('sel-apply').onclick = () => {
		const a = parseFloat(document.getElementById('sel-from').value);
		const b = parseFloat(document.getElementById('sel-to').value);
		if (isFinite(a) && isFinite(b) && b >= a) selectSeconds(a, b);
	};

	for (const [id, key] of [['show-phases', 'phases'], ['show-regions', 'regions']])
		document.getElementById(id).onchange = ev => { showMarks[key] = ev.target.checked; plots.forEach(u => u.redraw(false)); };

	// ---- the selection
	// The buckets holding the windows from a to b ns (both inclusive).
	function selectNs(a, b) { select(Math.floor(a / W), Math.floor(b / W)); }
	function selectSeconds(t0, t1) {
		const b0 = Math.max(0, Math.floor(t0 * 1e9 / W));
		const b1 = Math.min(NB - 1, Math.max(b0, Math.ceil(t1 * 1e9 / W) - 1));
		select(b0, b1);
	}
	function select(b0, b1) {
		sel.b0 = Math.max(0, Math.min(b0, NB - 1));
		sel.b1 = Math.max(sel.b0, Math.min(b1, NB - 1));
		const from = sel.b0 * W, to = (sel.b1 + 1) * W - 1;
		let n = 0;
		for (let b = sel.b0; b <= sel.b1; b++) n += perBucket[b];
		document.getElementById('sel-from').value = +(from / 1e9).toFixed(9);
		document.getElementById('sel-to').value = +((to + 1) / 1e9).toFixed(9);
		document.getElementById('selection').textContent = 'Selection: ' + fmtTime(from) + ' to ' +
			fmtTime(to + 1) + ', ' + n.toLocaleString('en-US') + ' windows: the same as pmiprof report --time ' +
			from + 'ns,' + to + 'ns';
		state.windows = n;
		state.time = [from, to];
		renderTable();
		renderFlame();
		renderHist();
		renderAnn();
		showSelectionBands();
	}

	// ---- flat profile of the selection
	const state = { sortKey: 'samples', sortDesc: true, rows: [], total: 0, flameTotal: 0, ann: { fn: 0 } };
	const derived = D.metrics.filter(m => !/-rate$/.test(m.name));
	function aggregate(C, b0, b1) {
		const map = new Map();
		for (let k = C.start[b0]; k < C.start[b1 + 1]; k++) {
			const id = C.id[k];
			let r = map.get(id);
			if (!r) { r = { id, samples: 0, c: new Array(NEV).fill(0) }; map.set(id, r); }
			r.samples += C.n[k];
			for (let e = 0; e < NEV; e++) r.c[e] += C.c[e][k];
		}
		return map;
	}
	const cols = [
		{ key: 'samples', label: 'samples', get: r => r.samples },
		{ key: 'percent', label: 'percent', get: r => r.percent },
		{ key: 'ci', label: '95% interval (%)', get: r => r.ci[0], show: r => r.ci[0].toFixed(2) + ' to ' + r.ci[1].toFixed(2) },
	];
	D.events.forEach((ev, e) => cols.push({ key: 'ev' + e, label: ev + (D.ns_events[e] ? ' (ns)' : ''), get: r => r.c[e] }));
	derived.forEach((m, i) => cols.push({ key: 'm' + i, label: m.name, get: r => metricValue(m, r.c) }));
	cols.push({ key: 'symbol', label: 'symbol', name: true, get: r => D.syms[r.id][0] });
	cols.push({ key: 'dso', label: 'dso', name: true, get: r => D.syms[r.id][1] });
	const thead = document.querySelector('#profile thead'), tbody = document.querySelector('#profile tbody');
	function header() {
		const tr = document.createElement('tr');
		for (const c of cols) {
			const th = document.createElement('th');
			th.textContent = c.label + (state.sortKey === c.key ? (state.sortDesc ? ' \u25bc' : ' \u25b2') : '');
			th.tabIndex = 0;
			th.scope = 'col';
			th.setAttribute('aria-sort', state.sortKey === c.key ? (state.sortDesc ? 'descending' : 'ascending') : 'none');
			if (c.name) th.className = 'name';
			const act = () => { state.sortDesc = state.sortKey === c.key ? !state.sortDesc : !c.name; state.sortKey = c.key; renderTable(); };
			th.onclick = act;
			th.onkeydown = ev => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); act(); } };
			tr.appendChild(th);
		}
		thead.replaceChildren(tr);
	}
	function renderTable() {
		const map = aggregate(FN, sel.b0, sel.b1);
		let total = 0;
		for (const r of map.values()) total += r.samples;
		const rows = Array.from(map.values());
		for (const r of rows) { r.percent = total ? r.samples * 100 / total : 0; r.ci = wilson95(r.samples, total); }
		const c = cols.find(x => x.key === state.sortKey);
		rows.sort((x, y) => {
			let a = c.get(x), b = c.get(y);
			if (typeof a === 'number') { a = isFinite(a) ? a : -Infinity; b = isFinite(b) ? b : -Infinity; }
			const o = a < b ? -1 : a > b ? 1 : 0;
			return (state.sortDesc ? -o : o) || y.samples - x.samples;
		});
		state.rows = rows;
		state.total = total;
		header();
		const shown = rows.slice(0, 500), frag = document.createDocumentFragment();
		for (const r of shown) {
			const tr = document.createElement('tr');
			if (annBySym.has(r.id)) {
				tr.tabIndex = 0;
				tr.title = 'Show its source lines and instructions';
				tr.onclick = () => annChoose(annBySym.get(r.id), true);
				tr.onkeydown = ev => { if (ev.key === 'Enter') { ev.preventDefault(); annChoose(annBySym.get(r.id), true); } };
				if (annBySym.get(r.id) === state.ann.fn) tr.className = 'chosen';
			}
			for (const col of cols) {
				const td = document.createElement('td');
				if (col.name) td.className = 'name';
				td.textContent = col.show ? col.show(r) : col.name ? col.get(r) :
					col.key === 'percent' ? r.percent.toFixed(2) : fmtNum(col.get(r));
				tr.appendChild(td);
			}
			frag.appendChild(tr);
		}
		tbody.replaceChildren(frag);
		document.getElementById('tab-note').textContent = rows.length + ' functions, ' +
			total.toLocaleString('en-US') + ' samples' + (rows.length > 500 ? ' (first 500 shown)' : '') +
			'. Click a heading (or Enter on it) to sort.';
	}

	// ---- flame graph of the selection (d3-flame-graph)
	const fgEl = document.getElementById('flamegraph');
	let chart = null, fsel = null;
	function fakeSelection(el) {
		// The little of a d3 selection the chart uses (no d3 global in the bundle).
		return {
			each(fn) { fn.call(el, el.__data__); return this; },
			datum(v) {
				if (!arguments.length) return el.__data__;
				el.__data__ = typeof v === 'function' ? v(el.__data__) : v;
				return this;
			},
			selectAll(q) { return { remove() { el.querySelectorAll(q).forEach(n => n.remove()); } }; },
		};
	}
	function flameTree() {
		const map = aggregate(ST, sel.b0, sel.b1);
		// sums: the event sums of the windows through the frame, for its colour ("c" would be read as children by d3-flame-graph)
		const root = { name: 'all', value: 0, sums: new Array(NEV).fill(0), children: [], kids: new Map() };
		const add = (n, r) => { n.value += r.samples; for (let e = 0; e < NEV; e++) n.sums[e] += r.c[e]; };
		for (const r of map.values()) {
			let node = root;
			add(root, r);
			for (const f of D.stacks[r.id]) {
				let ch = node.kids.get(f);
				if (!ch) {
					ch = { name: D.frames[f][0], dso: D.frames[f][1], value: 0, sums: new Array(NEV).fill(0), children: [], kids: new Map() };
					node.kids.set(f, ch);
					node.children.push(ch);
				}
				add(ch, r);
				node = ch;
			}
		}
		(function strip(n) { delete n.kids; n.children.forEach(strip); })(root);
		return root;
	}
	// Colour as `pmiprof flamegraph --color-by`: a hue per DSO (the DSOs with the most
	// leaf samples of the run first, the kernel's blue-grey), or a metric of the
	// windows through the frame on a red-yellow-blue ramp (ipc: high is good).
	const FG_PALETTE = [30, 130, 280, 50, 180, 330, 90, 10], dsoHue = new Map(), dsoLeaf = new Map();
	for (let k = 0; k < ST.id.length; k++) {
		const st = D.stacks[ST.id[k]];
		if (st.length) { const dso = D.frames[st[st.length - 1]][1]; dsoLeaf.set(dso, (dsoLeaf.get(dso) || 0) + ST.n[k]); }
	}
	const isKernel = d => /^\[kernel|\.ko$|^\[vdso\]$/.test(d);
	Array.from(dsoLeaf.keys()).sort((a, b) => dsoLeaf.get(b) - dsoLeaf.get(a)).forEach(d => {
		let rank = 0;
		for (const v of dsoHue.values()) rank += v.ranked ? 1 : 0;
		dsoHue.set(d, isKernel(d) ? { h: 210, s: 0.2 } : rank < FG_PALETTE.length ? { h: FG_PALETTE[rank], s: 0.55, ranked: true } : null);
	});
	function hueOf(dso) {
		let v = dsoHue.get(dso);
		if (!v) { let h = 0; for (const ch of dso) h = (h * 31 + ch.charCodeAt(0)) >>> 0; v = { h: (h % 36) * 10, s: 0.55 }; dsoHue.set(dso, v); }
		return v;
	}
	function dsoColor(d) {
		const v = hueOf(d.data.dso || '');
		return 'hsl(' + v.h + ',' + v.s * 100 + '%,' + (62 + (d.data.name.length % 8)) + '%)';
	}
	function ramp(t) {
		const st = [[214, 47, 39], [245, 200, 70], [60, 140, 215]];
		t = Math.max(0, Math.min(1, t));
		const a = st[t < 0.5 ? 0 : 1], b = st[t < 0.5 ? 1 : 2], u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
		return 'rgb(' + a.map((x, i) => Math.round(x + (b[i] - x) * u)).join(',') + ')';
	}
	const fgSel = document.getElementById('fg-color'), colorable = D.metrics.filter(m => m.kind !== 'event' && m.b >= 0);
	for (const v of ['dso'].concat(colorable.map(m => m.name))) {
		const o = document.createElement('option'); o.value = v; o.textContent = v === 'dso' ? 'DSO' : v; fgSel.appendChild(o);
	}
	const color = { by: colorable.some(m => m.name === 'ipc') ? 'ipc' : 'dso', m: null, hi: 1, good: false };
	color.m = colorable.find(m => m.name === color.by) || null;
	color.good = color.by === 'ipc';
	fgSel.value = color.by;
	// The scale's top: the highest value of frames with > 0.5% of the samples, up to a half step.
	function colorTop(root) {
		const min = root.value / 200;
		let hi = 0;
		(function walk(n) {
			const v = metricValue(color.m, n.sums);
			if (n.value > min && isFinite(v) && v > hi) hi = v;
			n.children.forEach(walk);
		})(root);
		if (hi <= 0) return 1;
		const p = Math.pow(10, Math.floor(Math.log10(hi)));
		return Math.ceil(hi / p * 2 - 1e-9) / 2 * p;
	}
	function frameColor(d) {
		if (d.highlight) return '#e040fb';
		if (!d.depth) return 'rgb(200,200,190)';
		if (!color.m) return dsoColor(d);
		const v = metricValue(color.m, d.data.sums);
		if (!isFinite(v)) return 'rgb(190,190,190)';
		return ramp(color.good ? v / color.hi : 1 - v / color.hi);
	}
	function colorLegend() {
		const lg = document.getElementById('fg-legend');
		lg.replaceChildren();
		const key = (bg, text) => {
			const sp = document.createElement('span');
			sp.className = 'key';
			sp.innerHTML = '<span class="swatch"></span>';
			sp.firstChild.style.background = bg;
			sp.appendChild(document.createTextNode(text));
			lg.appendChild(sp);
		};
		if (!color.m) {
			lg.appendChild(document.createTextNode('colour: the DSO of the frame (hue): '));
			Array.from(dsoLeaf.keys()).sort((a, b) => dsoLeaf.get(b) - dsoLeaf.get(a)).slice(0, 8)
				.forEach(d => { const v = hueOf(d); key('hsl(' + v.h + ',' + v.s * 100 + '%,64%)', d); });
			return;
		}
		const unit = unitOf(color.m), den = D.events[color.m.b];
		lg.appendChild(document.createTextNode('colour: ' + color.m.name + ' (' + unit + ') of the windows through the frame, ' +
			(color.good ? 'red low, blue high' : 'red high, blue low') + ': '));
		const bar = document.createElement('span');
		bar.className = 'ramp';
		bar.style.background = 'linear-gradient(to right,' + [0, 0.25, 0.5, 0.75, 1].map(t => ramp(color.good ? t : 1 - t)).join(',') + ')';
		lg.appendChild(document.createTextNode('0 '));
		lg.appendChild(bar);
		lg.appendChild(document.createTextNode(' ' + eng(color.hi) + '+ ' + unit + ' '));
		key('rgb(190,190,190)', 'no ' + den + ' (no value)');
	}
	function setColor(by) {
		color.by = by;
		color.m = by === 'dso' ? null : colorable.find(m => m.name === by) || null;
		color.good = by === 'ipc';
		fgSel.value = by;
		renderFlame();
	}
	fgSel.onchange = () => setColor(fgSel.value);
	function renderFlame() {
		if (!D.stacks.length) {
			document.getElementById('fg-note').textContent = 'This trace has no call stacks (record with -g for a flame graph).';
			state.flameTotal = null;
			return;
		}
		const root = flameTree();
		state.flameTotal = root.value;
		if (color.m) color.hi = colorTop(root);
		colorLegend();
		if (!chart) {
			chart = flamegraph().width(Math.max(600, fgEl.clientWidth || 1200)).cellHeight(18)
				.transitionDuration(0).minFrameSize(1).selfValue(false)
				.setColorMapper(frameColor).label(d => d.data.name + (d.data.dso ? ' [' + d.data.dso + ']' : '') +
					': ' + d.value.toLocaleString('en-US') + ' samples, ' +
					(100 * d.value / (state.flameTotal || 1)).toFixed(2) + '%');
			chart.onClick(d => {
				const i = ANN.fns.findIndex(f => D.syms[f.sym][0] === d.data.name && D.syms[f.sym][1] === d.data.dso);
				if (i >= 0) annChoose(i, false);
			});
			fgEl.__data__ = root;
			fsel = fakeSelection(fgEl);
			chart(fsel);
		} else {
			chart.update(root);
		}
		document.getElementById('fg-note').textContent = root.value.toLocaleString('en-US') +
			' samples; width = samples; click a frame to zoom, Reset zoom to go back; Search highlights matching frames.';
		const q = document.getElementById('fg-search').value;
		if (q) doSearch(q);
	}
	function doSearch(q) {
		if (!chart) return;
		if (q) chart.search(q); else chart.clear();
		let matched = 0;
		(function walk(n) {
			const nm = (n.data || n).name;
			if (n.depth !== 0 && nm && q && nm.indexOf(q) >= 0) { matched += n.value; return; }
			(n.children || []).forEach(walk);
		})(fgEl.__data__);
		state.searchMatched = matched;
		document.getElementById('fg-match').textContent = q ? 'matched: ' + matched.toLocaleString('en-US') +
			' samples (' + (100 * matched / (state.flameTotal || 1)).toFixed(2) + '%)' : '';
	}
	document.getElementById('fg-search').oninput = ev => doSearch(ev.target.value);
	document.getElementById('fg-reset').onclick = () => chart && chart.resetZoom();

	// ---- the list of phases and regions: each entry selects its time range
	const marks = [];
	function markEntry(parent, kind, label, b, e, color) {
		const bt = document.createElement('button');
		bt.type = 'button';
		bt.className = 'mark';
		bt.textContent = label;
		bt.title = 'select ' + fmtTime(b) + ' to ' + fmtTime(e) + ' (whole buckets of ' + fmtTime(W) + ')';
		bt.style.borderLeftColor = color;
		const m = { kind, label, begin_ns: b, end_ns: e, el: bt };
		bt.onclick = () => { selectNs(b, e); state.mark = { kind, label, begin_ns: b, end_ns: e }; };
		marks.push(m);
		parent.appendChild(bt);
	}
	function markGroup(title, color, note) {
		const g = document.createElement('div');
		g.className = 'mark-group';
		const h = document.createElement('div');
		h.innerHTML = '<span class="swatch"></span>';
		h.firstChild.style.background = color;
		h.appendChild(document.createTextNode(title + (note ? ' ' + note : '')));
		g.appendChild(h);
		document.getElementById('marks').appendChild(g);
		return g;
	}
	const span = (b, e) => (b / 1e9).toFixed(3) + '\u2013' + (e / 1e9).toFixed(3) + ' s';
	if (PH.k) {
		for (let p = 0; p < PH.k; p++) {
			const runs = PH.runs.filter(r => r[2] === p);
			const g = markGroup(PH.names[p], phaseColor(p), '(' + runs.length + ' stretch' + (runs.length > 1 ? 'es' : '') + ')');
			for (const [b, e] of runs) markEntry(g, 'phase', PH.names[p].replace(/:.*/, '') + ': ' + span(b, e), b, e, phaseColor(p));
		}
	} else {
		markGroup('No phases: ' + ((D.phases && D.phases.note) || 'none found'), '#ccc');
	}
	const MAX_LISTED = 40;
	RG.names.forEach((name, r) => {
		const bands = RG.bands.filter(x => x[2] === r);
		const g = markGroup('region ' + name, regionColor(r), '(' + bands.length + ' band' + (bands.length === 1 ? '' : 's') +
			(bands.length > MAX_LISTED ? ', the first ' + MAX_LISTED + ' listed' : '') + ')');
		for (const [b, e] of bands.slice(0, MAX_LISTED)) markEntry(g, 'region', name + ': ' + span(b, e), b, e, regionColor(r));
	});
	if (RG.left || RG.spans_dropped)
		markGroup((RG.left + RG.spans_dropped) + ' region band(s) not in the page', '#ccc');
	if (!RG.names.length) markGroup('No code regions in this trace (libpmiprof-region markers)', '#ccc');

	// ---- histograms of a per-window metric (html.c: 10 log bins per decade, bin 0 = zeros)
	const HC = cells(D.hist), HPD = D.hist_per_decade, HOFF = D.hist_off, HIDS = D.hist_ids;
	const hsel = document.getElementById('hist-metric');
	D.metrics.forEach((m, i) => { const o = document.createElement('option'); o.value = i; o.textContent = m.name; hsel.appendChild(o); });
	let histPlot = null;
	function histOf(mi, b0, b1) {
		const h = new Map();
		for (let k = HC.start[b0]; k < HC.start[b1 + 1]; k++) {
			if (Math.floor(HC.id[k] / HIDS) !== mi) continue;
			const bin = HC.id[k] % HIDS;
			h.set(bin, (h.get(bin) || 0) + HC.n[k]);
		}
		return h;
	}
	const binLo = j => Math.pow(10, (j - 1 - HOFF) / HPD);
	function eng(v) {
		if (v === 0) return '0';
		const a = Math.abs(v), pre = [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k'], [1, ''], [1e-3, 'm'], [1e-6, 'u'], [1e-9, 'n']];
		for (const [f, p] of pre) if (a >= f) return +(v / f).toPrecision(3) + p;
		return v.toExponential(1);
	}
	function renderHist() {
		const note = document.getElementById('hist-note'), el = document.getElementById('hist');
		if (!D.metrics.length) { note.textContent = 'This trace has no per-window metric (only the trigger event).'; return; }
		const mi = +hsel.value || 0, m = D.metrics[mi], unit = unitOf(m);
		const whole = histOf(mi, 0, NB - 1), part = histOf(mi, sel.b0, sel.b1);
		const sum = h => { let n = 0; for (const v of h.values()) n += v; return n; };
		const nw = sum(whole), np = sum(part);
		const logBins = Array.from(whole.keys()).filter(j => j > 0).sort((a, b) => a - b);
		const bins = [];
		if (whole.has(0)) bins.push(0);
		if (logBins.length) for (let j = logBins[0]; j <= logBins[logBins.length - 1]; j++) bins.push(j);
		const xsH = bins.map((j, i) => i);
		const pw = bins.map(j => (nw ? 100 * (whole.get(j) || 0) / nw : 0));
		const pp = bins.map(j => (np ? 100 * (part.get(j) || 0) / np : 0));
		state.hist = { metric: m.name, unit, bins, whole: bins.map(j => whole.get(j) || 0), sel: bins.map(j => part.get(j) || 0), n_whole: nw, n_sel: np };
		const label = i => (bins[i] === 0 ? '0' : eng(binLo(bins[i])));
		const opts = {
			title: m.name + ' per window (' + unit + '): % of the windows in each bin, selection vs whole run',
			width: Math.min(width(), 1000), height: 220,
			scales: { x: { time: false, range: [-0.6, Math.max(bins.length - 0.4, 0.6)] }, y: { range: (u, a, b) => [0, Math.max(b, 1) * 1.05] } },
			axes: [{ label: m.name + ' (' + unit + '), bins from this value up' + (bins[0] === 0 ? '; 0: windows of exactly 0' : '') + '; ' + HPD + ' bins per decade',
				splits: () => xsH.filter(i => bins.length <= 24 || i % Math.ceil(bins.length / 24) === 0),
				values: (u, sp) => sp.map(label) },
			{ label: '% of windows', size: 60 }],
			series: [{ label: 'bin', value: (u, v) => (v == null ? '' : label(v)) },
				{ label: 'whole run (' + nw.toLocaleString('en-US') + ' windows)', stroke: '#555', fill: 'rgba(90,90,90,0.35)',
					paths: uPlot.paths.bars({ size: [0.42, Infinity], align: -1 }), value: (u, v) => (v == null ? '' : v.toFixed(2) + '%') },
				{ label: 'selection (' + np.toLocaleString('en-US') + ' windows)', stroke: '#c62828', fill: 'rgba(198,40,40,0.55)',
					paths: uPlot.paths.bars({ size: [0.42, Infinity], align: 1 }), value: (u, v) => (v == null ? '' : v.toFixed(2) + '%') }],
		};
		if (histPlot) histPlot.destroy();
		histPlot = new uPlot(opts, [xsH, pw, pp], el);
		note.textContent = 'Per-window values of the windows per-window statistics admit, with a value (a zero denominator gives none): ' +
			nw.toLocaleString('en-US') + ' in the run, ' + np.toLocaleString('en-US') + ' in the selection; bars are % of each set.';
	}
	hsel.onchange = renderHist;


	// ---- annotate pane: the chosen function's lines and instructions in the selection,
	// summed from the (bucket, address) cells "ac" (html_annotate.c): the numbers of
	// pmiprof annotate --time for the same range.
	function annAggregate(fi) {
		const f = ANN.fns[fi];
		const zero = () => ({ samples: 0, c: new Array(NEV).fill(0) });
		const ins = f.insns.map(zero), lin = f.lines.map(zero);
		let total = 0;
		for (let k = AC.start[sel.b0]; k < AC.start[sel.b1 + 1]; k++) {
			const p = ANN.aid[AC.id[k]];
			if (p[0] !== fi) continue;
			const r = ins[p[1]];
			r.samples += AC.n[k];
			total += AC.n[k];
			for (let e = 0; e < NEV; e++) r.c[e] += AC.c[e][k];
		}
		f.insns.forEach((x, i) => {
			if (x[3] < 0) return;
			const l = lin[x[3]];
			l.samples += ins[i].samples;
			for (let e = 0; e < NEV; e++) l.c[e] += ins[i].c[e];
		});
		return { ins, lin, total };
	}
	function annTable(id, heads, rows) {
		const t = document.getElementById(id), tr = document.createElement('tr');
		for (const h of heads) {
			const th = document.createElement('th');
			th.textContent = h.label;
			th.scope = 'col';
			if (h.src) th.className = 'name';
			tr.appendChild(th);
		}
		t.querySelector('thead').replaceChildren(tr);
		const frag = document.createDocumentFragment();
		for (const r of rows) {
			const row = document.createElement('tr');
			if (r.hot) row.className = 'hot';
			for (const h of heads) {
				const td = document.createElement('td');
				if (h.src) td.className = 'src';
				td.textContent = h.get(r);
				row.appendChild(td);
			}
			frag.appendChild(row);
		}
		t.querySelector('tbody').replaceChildren(frag);
	}
	function annChoose(i, scroll) {
		state.ann.fn = i;
		annSel.value = i;
		renderAnn();
		document.querySelectorAll('#profile tbody tr').forEach(tr => tr.classList.remove('chosen'));
		if (scroll) document.getElementById('ann-h').scrollIntoView();
	}
	function renderAnn() {
		const note = document.getElementById('ann-note');
		if (!ANN.fns.length || !AC) {
			note.textContent = 'No function is embedded (no samples in files pmiprof can read).';
			return;
		}
		const fi = state.ann.fn, f = ANN.fns[fi], g = annAggregate(fi);
		const pct = n => g.total ? (100 * n / g.total).toFixed(2) : '';
		const evCols = D.events.map((ev, e) => ({ label: ev + (D.ns_events[e] ? ' (ns)' : ''), get: r => r.samples ? fmtNum(r.c[e]) : '' }));
		const mCols = derived.map(m => ({ label: m.name, get: r => { const v = metricValue(m, r.c); return r.samples && isFinite(v) ? v.toFixed(3) : ''; } }));
		const lrows = f.lines.map((l, i) => ({ file: l[0], line: l[1], inl: l[2], text: l[3], samples: g.lin[i].samples, c: g.lin[i].c }));
		const irows = f.insns.map((x, i) => ({ addr: x[0], off: x[1], text: x[2], li: x[3], samples: g.ins[i].samples, c: g.ins[i].c }));
		const hot = rs => { let b = null; for (const r of rs) if (r.samples && (!b || r.samples > b.samples)) b = r; if (b) b.hot = true; };
		hot(lrows);
		hot(irows);
		state.ann.lines = lrows.map(r => ({ file: r.file, line: r.line, inline: r.inl, samples: r.samples, counts: r.c }));
		state.ann.insns = irows.map(r => ({ address: r.addr, samples: r.samples, counts: r.c }));
		state.ann.total = g.total;
		note.textContent = D.syms[f.sym][0] + ' [' + D.syms[f.sym][1] + ']: ' + g.total.toLocaleString('en-US') +
			' samples in the selection; percent of the function\u2019s samples there' + (f.note ? '. ' + f.note : '') +
			'. ' + (D.time_based ? 'Time-based windows: a sample lands on the instruction after the one that spent the time (skid).' :
				'Samples land some instructions after their cause (skid).');
		annTable('ann-lines', [
			{ label: 'line', get: r => r.file + ':' + r.line },
			{ label: 'samples', get: r => r.samples ? r.samples.toLocaleString('en-US') : '' },
			{ label: 'percent', get: r => r.samples ? pct(r.samples) : '' },
		].concat(evCols, mCols, [
			{ label: 'inlined', src: true, get: r => r.inl },
			{ label: 'source', src: true, get: r => r.text },
		]), lrows);
		annTable('ann-insns', [
			{ label: 'address', get: r => r.addr.replace(/^0x/, '') },
			{ label: 'offset', get: r => '+0x' + r.off.toString(16) },
			{ label: 'samples', get: r => r.samples ? r.samples.toLocaleString('en-US') : '' },
			{ label: 'percent', get: r => r.samples ? pct(r.samples) : '' },
		].concat(evCols, [
			{ label: 'line', get: r => r.li >= 0 ? f.lines[r.li][0] + ':' + f.lines[r.li][1] : '' },
			{ label: 'instruction', src: true, get: r => r.text },
		]), irows);
	}

	// ---- header
	document.getElementById('meta').textContent = D.input + ': ' + D.windows_kind + '; ' +
		D.windows.toLocaleString('en-US') + ' windows' + (D.lost ? ', ' + D.lost + ' lost' : '') +
		'; buckets of ' + fmtTime(W) + ' (' + NB + ')' + '; events: ' + D.events.join(', ');
	document.title = 'pmiprof report: ' + D.input;
	const mselect = document.getElementById('metric');
	series.forEach((s, i) => { const o = document.createElement('option'); o.value = i; o.textContent = s.name; mselect.appendChild(o); });
	mselect.onchange = () => {
		plots[mselect.value].root.scrollIntoView();
		if (mselect.value > 0) { hsel.value = mselect.value - 1; renderHist(); }
	};

	const annSel = document.getElementById('ann-fn');
	ANN.fns.forEach((f, i) => {
		const o = document.createElement('option');
		o.value = i;
		o.textContent = D.syms[f.sym][0] + ' [' + D.syms[f.sym][1] + ']';
		annSel.appendChild(o);
	});
	annSel.onchange = () => annChoose(+annSel.value, false);
	window.pmiprof = { data: D, state, select, annChoose, selectSeconds, selectNs, marks, setColor, search: doSearch, chart: () => chart, plots };
	select(0, NB - 1);
	requestAnimationFrame(() => { window.pmiprofReady = performance.now(); });
})();
