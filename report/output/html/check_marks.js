// Drives a `pmiprof report --html` page in headless chromium (puppeteer-core)
// for test t522: node check_marks.js PAGE [MAX_PER_KIND [SHOT.png]]
// Clicks entries of the phases-and-regions list as a person would and
// prints, per entry, the selection it made (time, windows, the flat table's
// rows, the flame graph's total and the histogram's counts); then switches
// the flame graph's "Colour by" to a metric and back to DSO, printing the
// frames' fills and the legend each time; zooms the timeline to the last
// selection and pans it with the buttons, printing each chart's x range;
// takes a screenshot (full page) of the result.  One JSON object on stdout.
'use strict';
const puppeteer = require('puppeteer-core');
(async () => {
	const [page_path, max_s, shot] = process.argv.slice(2);
	const max = parseInt(max_s || '2', 10);
	const browser = await puppeteer.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--no-sandbox', '--disable-gpu', '--no-first-run'], headless: true,
	});
	const out = { errors: [], marks: [] };
	try {
		const page = await browser.newPage();
		await page.setViewport({ width: 1280, height: 800 });
		page.on('console', m => { if (m.type() === 'error') out.errors.push(m.text()); });
		page.on('pageerror', e => out.errors.push(String(e)));
		await page.goto('file://' + require('path').resolve(page_path), { waitUntil: 'load' });
		await page.waitForFunction('window.pmiprofReady', { timeout: 60000 });
		const list = await page.evaluate(() => window.pmiprof.marks.map(m => ({ kind: m.kind, label: m.label, begin_ns: m.begin_ns, end_ns: m.end_ns })));
		const buttons = await page.$$('#marks button.mark');
		const taken = { phase: 0, region: 0 };
		for (let i = 0; i < list.length && i < buttons.length; i++) {
			if (taken[list[i].kind] >= max) continue;
			taken[list[i].kind]++;
			await buttons[i].click();
			const r = await page.evaluate(() => {
				const P = window.pmiprof, S = P.state;
				return {
					time: S.time, windows: S.windows, total: S.total, flame_total: S.flameTotal,
					rows: S.rows.map(r => ({ symbol: P.data.syms[r.id][0], dso: P.data.syms[r.id][1], samples: r.samples, counts: r.c })),
					hist: S.hist, mark: S.mark, selection_text: document.getElementById('selection').textContent,
				};
			});
			out.marks.push(Object.assign({}, list[i], r));
		}
		// the flame graph's colour: DSO (default), then a metric, then DSO again
		const colour = async () => page.evaluate(() => {
			const fills = Array.from(document.querySelectorAll('#flamegraph g.frame rect'))
				.filter(r => r.parentNode.__data__ && r.parentNode.__data__.depth >= 1)
				.map(r => r.getAttribute('fill') || getComputedStyle(r).fill);
			return { by: document.getElementById('fg-color').value, fills: Array.from(new Set(fills)).sort(),
				frames: fills.length, legend: document.getElementById('fg-legend').textContent };
		});
		const options = await page.evaluate(() => Array.from(document.querySelectorAll('#fg-color option')).map(o => o.value));
		out.colour = { options, dso: await colour() };
		const metric = options.find(o => o !== 'dso');
		if (metric) {
			await page.select('#fg-color', metric);
			out.colour.metric = await colour();
			await page.select('#fg-color', 'dso');
			out.colour.back = await colour();
			await page.select('#fg-color', metric);
		}
		// the table: sort by clicking each heading (twice: both directions); the
		// displayed column's cells in order
		out.sort = [];
		const nth = await page.evaluate(() => document.querySelectorAll('#profile thead th').length);
		for (let i = 0; i < nth; i++) {
			for (const round of [1, 2]) {
				const ths = await page.$$('#profile thead th');
				if (round === 1 && i % 2) {	// every other heading by keyboard, as a person tabbing
					await ths[i].focus();
					await page.keyboard.press('Enter');
				} else {
					await ths[i].click();
				}
				out.sort.push(await page.evaluate(i => {
					const th = document.querySelectorAll('#profile thead th')[i];
					const cells = Array.from(document.querySelectorAll('#profile tbody tr')).map(tr => tr.children[i].textContent);
					return { heading: th.textContent, aria: th.getAttribute('aria-sort'), name: th.className === 'name', cells };
				}, i));
			}
		}
		// the timeline: zoom to the selection, pan right, back to the whole run
		const xr = async () => page.evaluate(() => window.pmiprof.plots.map(u => [u.scales.x.min, u.scales.x.max]));
		out.timeline = { sel: await page.evaluate(() => window.pmiprof.state.time) };
		await page.click('#zoom-sel');
		out.timeline.zoomed = await xr();
		await page.click('#pan-right');
		out.timeline.panned = await xr();
		if (shot) await page.screenshot({ path: shot, fullPage: true });
		await page.click('#zoom-reset');
		out.timeline.reset = await xr();
	} finally {
		await browser.close();
	}
	console.log(JSON.stringify(out));
})().catch(e => { console.error(String(e && e.stack || e)); process.exit(1); });
