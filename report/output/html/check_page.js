// Drives a `pmiprof report --html` page in headless chromium (puppeteer-core)
// for tests t520 and the bench: node check_page.js PAGE RANGE_FROM_S RANGE_TO_S SHOT.png
// Prints one JSON object: console errors, load timings, and for the range the
// table's and the flame graph's totals and rows, search and zoom results.
'use strict';
const puppeteer = require('puppeteer-core');
(async () => {
	const [page_path, t0, t1, shot] = process.argv.slice(2);
	const browser = await puppeteer.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--no-sandbox', '--disable-gpu', '--no-first-run'], headless: true,
	});
	const out = { errors: [] };
	try {
		const page = await browser.newPage();
		await page.setViewport({ width: 1280, height: 800 });
		page.on('console', m => { if (m.type() === 'error') out.errors.push(m.text()); });
		page.on('pageerror', e => out.errors.push(String(e)));
		page.on('requestfailed', r => out.errors.push('request ' + r.url()));
		const start = Date.now();
		await page.goto('file://' + require('path').resolve(page_path), { waitUntil: 'load' });
		try {
			await page.waitForFunction('window.pmiprofReady', { timeout: 60000 });
		} catch (e) {
			out.errors.push('page never ready: ' + e.message);
			console.log(JSON.stringify(out));
			return;
		}
		out.wall_ms = Date.now() - start;
		out.paint = await page.evaluate(() => {
			const p = performance.getEntriesByType('paint').map(e => [e.name, e.startTime]);
			return { entries: Object.fromEntries(p), ready_ms: window.pmiprofReady };
		});
		if (t0 === undefined) { console.log(JSON.stringify(out)); return; }
		out.range = await page.evaluate((a, b) => {
			const P = window.pmiprof;
			P.selectSeconds(a, b);
			const rows = P.state.rows.map(r => ({ symbol: P.data.syms[r.id][0], dso: P.data.syms[r.id][1], samples: r.samples, counts: r.c }));
			const th = document.querySelectorAll('#profile tbody tr').length;
			return { time: P.state.time, windows: P.state.windows, total: P.state.total, flame_total: P.state.flameTotal, rows, shown_rows: th };
		}, parseFloat(t0), parseFloat(t1));
		// search: type into the box as a person would
		const top = out.range.rows.length ? out.range.rows[0].symbol : '';
		await page.focus('#fg-search');
		await page.keyboard.type(top.slice(0, 40));
		out.search = await page.evaluate(() => ({
			matched: window.pmiprof.state.searchMatched,
			highlighted: document.querySelectorAll('#flamegraph g.frame rect[fill="#e040fb"]').length,
			text: document.getElementById('fg-match').textContent,
		}));
		out.search.term = top.slice(0, 40);
		// zoom: click the widest frame under the root whose name is the term
		out.zoom = await page.evaluate(() => {
			const frames = Array.from(document.querySelectorAll('#flamegraph g.frame'));
			const before = frames.filter(g => g.style.display !== 'none' && g.getAttribute('width') !== '0').length;
			let target = null;
			for (const g of frames) {
				const d = g.__data__;
				const w = g.querySelector('rect') ? parseFloat(g.querySelector('rect').getAttribute('width')) : 0;
				if (d && d.depth >= 1 && w >= 20 && w < 1000 && (!target || d.value > target.__data__.value)) target = g;
			}
			if (!target) return { clicked: false };
			target.dispatchEvent(new MouseEvent('click', { bubbles: true }));
			return { clicked: true, name: target.__data__.data.name, depth: target.__data__.depth, before,
				width_before: parseFloat(target.querySelector('rect').getAttribute('width')) };
		});
		await new Promise(r => setTimeout(r, 500));
		if (out.zoom.clicked) Object.assign(out.zoom, await page.evaluate(z => {
			const g = Array.from(document.querySelectorAll('#flamegraph g.frame'))
				.find(x => x.__data__ && x.__data__.depth === z.depth && x.__data__.data.name === z.name);
			return { width_after: g ? parseFloat(g.querySelector('rect').getAttribute('width')) : -1,
				svg_width: parseFloat(document.querySelector('#flamegraph svg').getAttribute('width')) };
		}, out.zoom));
		// keyboard: Tab reaches the controls
		const seen = [];
		await page.evaluate(() => document.activeElement.blur());
		for (let i = 0; i < 12; i++) {
			await page.keyboard.press('Tab');
			seen.push(await page.evaluate(() => document.activeElement.id || document.activeElement.tagName));
		}
		out.tab_order = seen;
		if (shot) await page.screenshot({ path: shot, fullPage: false });
	} finally {
		await browser.close();
	}
	console.log(JSON.stringify(out));
})().catch(e => { console.error(String(e && e.stack || e)); process.exit(1); });
