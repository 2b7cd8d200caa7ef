// Drives the annotate pane of a `pmiprof report --html` page in headless
// chromium (puppeteer-core) for test t524:
//   node check_annotate.js PAGE FUNCTION RANGE_FROM_S RANGE_TO_S [SHOT.png]
// Selects the range, clicks FUNCTION's row of the flat table as a person
// would, and prints one JSON object: console errors, the selection's time,
// the pane's line and instruction rows (as shown: the tables' cells, and as
// summed: state.ann), then the same after clicking FUNCTION's frame in the
// flame graph when the page has one.
'use strict';
const puppeteer = require('puppeteer-core');
(async () => {
	const [pagePath, fn, t0, t1, shot] = process.argv.slice(2);
	const browser = await puppeteer.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--no-sandbox', '--disable-gpu', '--no-first-run'], headless: true,
	});
	const out = { errors: [] };
	try {
		const page = await browser.newPage();
		await page.setViewport({ width: 1280, height: 900 });
		page.on('console', m => { if (m.type() === 'error') out.errors.push(m.text()); });
		page.on('pageerror', e => out.errors.push(String(e)));
		await page.goto('file://' + require('path').resolve(pagePath), { waitUntil: 'load' });
		await page.waitForFunction('window.pmiprofReady', { timeout: 60000 });
		out.embedded = await page.evaluate(() => window.pmiprof.data.ann.fns.map(f => window.pmiprof.data.syms[f.sym][0]));
		out.time = await page.evaluate((a, b) => { window.pmiprof.selectSeconds(a, b); return window.pmiprof.state.time; },
			parseFloat(t0), parseFloat(t1));
		// click the function's row of the flat profile
		out.clicked_row = await page.evaluate(name => {
			const rows = Array.from(document.querySelectorAll('#profile tbody tr'));
			const P = window.pmiprof;
			const i = P.state.rows.findIndex(r => P.data.syms[r.id][0] === name);
			if (i < 0 || !rows[i]) return false;
			rows[i].dispatchEvent(new MouseEvent('click', { bubbles: true }));
			return true;
		}, fn);
		const read = () => page.evaluate(() => {
			const A = window.pmiprof.state.ann, P = window.pmiprof;
			const cells = id => Array.from(document.querySelectorAll('#' + id + ' tbody tr')).map(tr =>
				Array.from(tr.children).map(td => td.textContent));
			return {
				function: P.data.syms[P.data.ann.fns[A.fn].sym][0], total: A.total, lines: A.lines, insns: A.insns,
				line_cells: cells('ann-lines'), insn_cells: cells('ann-insns'),
				hot_rows: document.querySelectorAll('#ann-lines tr.hot, #ann-insns tr.hot').length,
				note: document.getElementById('ann-note').textContent,
			};
		});
		out.row = await read();
		// choose another function in the list, then the frame of FUNCTION in the flame graph
		out.frame = await page.evaluate(name => {
			const P = window.pmiprof;
			if (!P.data.stacks.length) return { clicked: false };
			P.annChoose(P.data.ann.fns.length > 1 ? 1 : 0, false);
			const g = Array.from(document.querySelectorAll('#flamegraph g.frame')).find(x => x.__data__ && x.__data__.data.name === name);
			if (!g) return { clicked: false };
			g.dispatchEvent(new MouseEvent('click', { bubbles: true }));
			return { clicked: true };
		}, fn);
		await new Promise(r => setTimeout(r, 300));
		if (out.frame.clicked) out.frame.after = await read();
		if (shot) {
			await page.evaluate(() => document.getElementById('ann-h').scrollIntoView());
			await page.screenshot({ path: shot, fullPage: false });
		}
	} finally {
		await browser.close();
	}
	console.log(JSON.stringify(out));
})().catch(e => { console.error(String(e && e.stack || e)); process.exit(1); });
