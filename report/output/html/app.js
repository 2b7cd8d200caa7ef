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
	for (const m of D.metrics) {
		const unit = m.kind === 'ratio' ? m.name : m.kind === 'perkilo' ? 'per 1000 instructions'
			: m.kind === 'percent' ? '%' : m.kind === 'persecond' ? 'per s' : '';
		series.push({ name: m.name, unit, values: statSums.map(c => metricValue(m, c)) });
	}

	const sel = { b0: 0, b1: NB - 1 };
	const plots = [];
	const tl = document.getElementById('timeline');
	const sync = uPlot.sync('pmiprof');
	let fromSelect = false;
	function width() { return Math.max(600, Math.min(tl.clientWidth || 1200, 1800)); }
	for (const s of series) {
		const opts = {
			title: s.name + (s.unit ? ' (' + s.unit + ')' : '') + ' per bucket of ' +
				fmtTime(W) + (D.time_based ? ', time-based windows' : ''),
			width: width(), height: 200,
			cursor: { drag: { x: true, y: false, setScale: false }, sync: { key: sync.key } },
			scales: { x: { time: false } },
			axes: [{ label: 'seconds since the start' }, { label: s.unit, size: 70 }],
			legend: { show: true },
			series: [{ label: 's' }, { label: s.name, stroke: '#1565c0', width: 1,
				fill: 'rgba(21,101,192,0.12)', spanGaps: false }],
			hooks: { setSelect: [u => {
				if (fromSelect || u.select.width < 2) return;
				const t0 = u.posToVal(u.select.left, 'x'), t1 = u.posToVal(u.select.left + u.select.width, 'x');
				selectSeconds(t0, t1);
			}] },
		};
		const y = Array.from(s.values, v => (isFinite(v) ? v : null));
		const u = new uPlot(opts, [Array.from(xs), y], tl);
		sync.sub(u);
		plots.push(u);
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

	// ---- the selection
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
		showSelectionBands();
	}

	// ---- flat profile of the selection
	const state = { sortKey: 'samples', sortDesc: true, rows: [], total: 0, flameTotal: 0 };
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
		const root = { name: 'all', value: 0, children: [], kids: new Map() };
		for (const r of map.values()) {
			let node = root;
			root.value += r.samples;
			for (const f of D.stacks[r.id]) {
				let ch = node.kids.get(f);
				if (!ch) {
					ch = { name: D.frames[f][0], dso: D.frames[f][1], value: 0, children: [], kids: new Map() };
					node.kids.set(f, ch);
					node.children.push(ch);
				}
				ch.value += r.samples;
				node = ch;
			}
		}
		(function strip(n) { delete n.kids; n.children.forEach(strip); })(root);
		return root;
	}
	const dsoHue = new Map();
	function dsoColor(d) {
		const dso = d.data.dso || '';
		if (!dsoHue.has(dso)) dsoHue.set(dso, (dsoHue.size * 137) % 360);
		return d.highlight ? '#e040fb' : 'hsl(' + dsoHue.get(dso) + ',60%,' + (62 + (d.data.name.length % 8)) + '%)';
	}
	function renderFlame() {
		if (!D.stacks.length) {
			document.getElementById('fg-note').textContent = 'This trace has no call stacks (record with -g for a flame graph).';
			state.flameTotal = null;
			return;
		}
		const root = flameTree();
		state.flameTotal = root.value;
		if (!chart) {
			chart = flamegraph().width(Math.max(600, fgEl.clientWidth || 1200)).cellHeight(18)
				.transitionDuration(0).minFrameSize(1).selfValue(false)
				.setColorMapper(dsoColor).label(d => d.data.name + (d.data.dso ? ' [' + d.data.dso + ']' : '') +
					': ' + d.value.toLocaleString('en-US') + ' samples, ' +
					(100 * d.value / (state.flameTotal || 1)).toFixed(2) + '%');
			fgEl.__data__ = root;
			fsel = fakeSelection(fgEl);
			chart(fsel);
		} else {
			chart.update(root);
		}
		document.getElementById('fg-note').textContent = root.value.toLocaleString('en-US') +
			' samples; width = samples; colour = DSO (hue); click a frame to zoom, Reset zoom to go back.';
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

	// ---- header
	document.getElementById('meta').textContent = D.input + ': ' + D.windows_kind + '; ' +
		D.windows.toLocaleString('en-US') + ' windows' + (D.lost ? ', ' + D.lost + ' lost' : '') +
		'; buckets of ' + fmtTime(W) + ' (' + NB + ')' + '; events: ' + D.events.join(', ');
	document.title = 'pmiprof report: ' + D.input;
	const mselect = document.getElementById('metric');
	series.forEach((s, i) => { const o = document.createElement('option'); o.value = i; o.textContent = s.name; mselect.appendChild(o); });
	mselect.onchange = () => plots[mselect.value].root.scrollIntoView();

	window.pmiprof = { data: D, state, select, selectSeconds, search: doSearch, chart: () => chart, plots };
	select(0, NB - 1);
	requestAnimationFrame(() => { window.pmiprofReady = performance.now(); });
})();
