/*
 * playground.js: the page's glue. It splits the words as a POSIX shell
 * would, runs the generator (emscripten's bcastgenModule, compiled from
 * gen/*.c) on them, and shows what each run printed and wrote. It knows
 * nothing of shapes, ops or options beyond the few words it adds or
 * leaves out, below; everything shown is the generator's own bytes.
 *
 * The runs for one set of words W (playground/README.md says the same):
 *
 *   1. bcastgen W                   -> #kernel (the .c file it wrote),
 *                                      #header (the .h file), #output
 *                                      (stdout), #error (stderr),
 *                                      #status (exit status)
 *   2. bcastgen W [--explain D] [--lang L]
 *                                   -> #explain (stdout; stderr, if any,
 *                                      in #explain-error)
 *   3. bcastgen W' [--explain D] [--lang L] [--format svg]
 *                                   -> #picture (stdout, when it is an
 *                                      SVG picture; stdout as text in
 *                                      the hidden #picture-source;
 *                                      stderr in #picture-error)
 *
 * D and L are the depth and language controls. Each bracketed option is
 * added only when no word of W is that option (the word itself, or it
 * followed by '='): the words win over the controls. W' is W without
 * the options that name files to write (-o, --output, -M, --depfile,
 * -MT, --depfile-target, each with the word after it, or with '=' and
 * its value in one word) and without --timings, since --format svg
 * writes to stdout and refuses -o. When run 2's words are run 1's, its
 * output is run 1's (the same bytes); no second run is made.
 *
 * With a spec in the textarea (not only white space), the words are
 * replaced by "spec.lua -o spec.c", spec.lua holding the textarea's text:
 * run 1 alone (a spec takes neither --explain nor --format svg).
 *
 * Each run is a fresh instance of the module (the C code has global
 * state), with an empty in-memory filesystem whose working directory is
 * /playground, stdin empty; the wasm is compiled once. #kernel and
 * #header are the regular files ending in .c and .h found anywhere in
 * that filesystem after the run (the spec excluded), empty when none.
 */
(function () {
	"use strict";

	var DIR = "/playground";
	var SPEC = "spec.lua";

	var TEXT = {
		en: {
			title: "bcastgen playground",
			intro: "The generator itself, compiled to WebAssembly, runs in this page: nothing is sent anywhere. Type the words that follow bcastgen on a command line.",
			words: "Command-line words",
			lang: "Language (--lang)",
			depth: "Explanation depth (--explain)",
			spec: "Spec file spec.lua: when not empty, it replaces the words (bcastgen spec.lua -o spec.c)",
			run: "Run",
			commands: "Commands run",
			status: "Exit status",
			error: "Error (standard error)",
			explain: "Explanation",
			picture: "Picture",
			kernel: "Kernel (.c file)",
			header: "Header (.h file)",
			output: "Standard output",
			loading: "Loading the generator…",
			running: "Running…",
			done: "Done.",
			unterminated: "the words end inside a %s quote",
			operator: "'%s' is a shell operator here: put it in quotes",
			failed: "the generator stopped: %s",
			none: "(none)"
		},
		zh: {
			title: "bcastgen 试用页",
			intro: "生成器本身编译成 WebAssembly，在本页中运行，不向任何地方发送数据。输入命令行里写在 bcastgen 之后的参数。",
			words: "命令行参数",
			lang: "语言（--lang）",
			depth: "讲解深度（--explain）",
			spec: "规格文件 spec.lua：不为空时代替命令行参数（bcastgen spec.lua -o spec.c）",
			run: "运行",
			commands: "运行的命令",
			status: "退出状态",
			error: "错误（标准错误输出）",
			explain: "讲解",
			picture: "图示",
			kernel: "核函数（.c 文件）",
			header: "头文件（.h 文件）",
			output: "标准输出",
			loading: "正在加载生成器……",
			running: "正在运行……",
			done: "完成。",
			unterminated: "参数在 %s 引号内结束，引号没有闭合",
			operator: "“%s”在 shell 中是操作符：请放进引号",
			failed: "生成器异常停止：%s",
			none: "（无）"
		}
	};

	function $(id) {
		return document.getElementById(id);
	}

	function fmt(s, arg) {
		return s.replace("%s", arg);
	}

	/*
	 * Split TEXT into words as a POSIX shell splits a simple command, with
	 * no expansion: blanks separate words; '...' keeps everything in it;
	 * "..." keeps everything but \ before $ ` " \ or a newline; \ outside
	 * quotes keeps the next character (and \ with a newline is removed);
	 * # at the start of a word begins a comment. The shell's operators
	 * (| & ; < > ( )) are refused, as they would not reach bcastgen as
	 * words. Returns {words: [...]} or {error: "..."}.
	 */
	function split(text) {
		var t = TEXT[lang()];
		var words = [], w = "", inword = false, i = 0, n = text.length, c, j;

		while (i < n) {
			c = text.charAt(i);
			if (c === "'") {
				j = text.indexOf("'", i + 1);
				if (j < 0)
					return {error: fmt(t.unterminated, "'")};
				w += text.slice(i + 1, j);
				inword = true;
				i = j + 1;
			} else if (c === "\"") {
				inword = true;
				for (i++; ; ) {
					if (i >= n)
						return {error: fmt(t.unterminated, "\"")};
					c = text.charAt(i);
					if (c === "\"") {
						i++;
						break;
					}
					if (c === "\\" && i + 1 < n && "$`\"\\\n".indexOf(text.charAt(i + 1)) >= 0) {
						if (text.charAt(i + 1) !== "\n")
							w += text.charAt(i + 1);
						i += 2;
					} else {
						w += c;
						i++;
					}
				}
			} else if (c === "\\") {
				if (i + 1 >= n) {
					w += c;
					inword = true;
					i++;
				} else if (text.charAt(i + 1) === "\n") {
					i += 2;
				} else {
					w += text.charAt(i + 1);
					inword = true;
					i += 2;
				}
			} else if (c === " " || c === "\t" || c === "\n") {
				if (inword)
					words.push(w);
				w = "";
				inword = false;
				i++;
			} else if (c === "#" && !inword) {
				j = text.indexOf("\n", i);
				i = j < 0 ? n : j;
			} else if ("|&;<>()".indexOf(c) >= 0) {
				return {error: fmt(t.operator, c)};
			} else {
				w += c;
				inword = true;
				i++;
			}
		}
		if (inword)
			words.push(w);
		return {words: words};
	}

	/* A word for a shell, quoted when it needs to be (for #commands). */
	function quote(word) {
		if (/^[A-Za-z0-9_@%+=:,.\/-]+$/.test(word))
			return word;
		return "'" + word.replace(/'/g, "'\\''") + "'";
	}

	/* Whether a word of WORDS is the option OPT, alone or with '='. */
	function given(words, opt) {
		for (var i = 0; i < words.length; i++)
			if (words[i] === opt || words[i].lastIndexOf(opt + "=", 0) === 0)
				return true;
		return false;
	}

	/* WORDS with each [option, value] of ADD whose option is not given. */
	function withDefaults(words, add) {
		var out = words.slice();

		for (var i = 0; i < add.length; i++)
			if (!given(words, add[i][0]))
				out.push(add[i][0], add[i][1]);
		return out;
	}

	/* WORDS without the options that name files to write, nor --timings. */
	var FILE_OPTIONS = ["-o", "--output", "-M", "--depfile", "-MT", "--depfile-target"];

	function withoutFiles(words) {
		var out = [];

		for (var i = 0; i < words.length; i++) {
			var w = words[i], eq = w.indexOf("=");

			if (FILE_OPTIONS.indexOf(w) >= 0)
				i++;
			else if (w === "--timings")
				continue;
			else if (eq > 0 && w.lastIndexOf("--", 0) === 0
				 && FILE_OPTIONS.indexOf(w.slice(0, eq)) >= 0)
				continue;
			else
				out.push(w);
		}
		return out;
	}

	/*
	 * The wasm, compiled once from the page's data block: its bytes
	 * gzipped, in base64 (the browser's own DecompressionStream inflates
	 * them).
	 */
	var compiled = null;

	function decode64(text) {
		var bin = atob(text.replace(/[^A-Za-z0-9+\/=]/g, "")), bytes = new Uint8Array(bin.length);

		for (var i = 0; i < bin.length; i++)
			bytes[i] = bin.charCodeAt(i);
		return bytes;
	}

	function compile() {
		if (!compiled) {
			var gz = decode64($("bcastgen-wasm").textContent);
			var stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));

			compiled = new Response(stream).arrayBuffer().then(function (wasm) {
				return WebAssembly.compile(wasm);
			});
		}
		return compiled;
	}

	function utf8(bytes) {
		return new TextDecoder("utf-8").decode(new Uint8Array(bytes));
	}

	/* The regular files under PATH of FS, but DIR/SPEC: {path: text}. */
	function files(FS, path, found) {
		var names = FS.readdir(path).sort();

		for (var i = 0; i < names.length; i++) {
			var name = names[i], full = (path === "/" ? "" : path) + "/" + name;

			if (name === "." || name === ".." || full === "/dev" || full === "/proc"
			    || full === DIR + "/" + SPEC)
				continue;
			var st = FS.lstat(full);
			if (FS.isDir(st.mode))
				files(FS, full, found);
			else if (FS.isFile(st.mode))
				found[full] = utf8(FS.readFile(full));
		}
		return found;
	}

	/*
	 * Run the generator once on WORDS, in a fresh instance, with the files
	 * of INPUTS ({name: text}) in its working directory. Resolves to
	 * {stdout, stderr, status, files}.
	 */
	function run(words, inputs) {
		return compile().then(function (mod) {
			var out = [], err = [], status = null, fail = null;

			return bcastgenModule({
				thisProgram: "bcastgen",
				noInitialRun: true,
				instantiateWasm: function (imports, done) {
					WebAssembly.instantiate(mod, imports).then(function (instance) {
						done(instance, mod);
					});
					return {};
				},
				stdin: function () {
					return null;
				},
				stdout: function (c) {
					if (c !== null)
						out.push(c);
				},
				stderr: function (c) {
					if (c !== null)
						err.push(c);
				},
				print: function () {},
				printErr: function () {},
				onExit: function (code) {
					status = code;
				},
				onAbort: function (what) {
					fail = String(what);
				},
				preRun: [function (m) {
					m.FS.mkdir(DIR);
					m.FS.chdir(DIR);
					for (var name in inputs)
						m.FS.writeFile(DIR + "/" + name, inputs[name]);
				}]
			}).then(function (m) {
				var ret;

				try {
					ret = m.callMain(words);
				} catch (e) {
					fail = fail || String(e && e.message || e);
				}
				if (status === null && typeof ret === "number" && !fail)
					status = ret;
				var found = {};
				try {
					files(m.FS, "/", found);
				} catch (e) {
					fail = fail || String(e && e.message || e);
				}
				return {stdout: utf8(out), stderr: utf8(err), status: status,
					fail: fail, files: found};
			});
		});
	}

	function lang() {
		return $("lang").value === "zh" ? "zh" : "en";
	}

	function pick(found, ext) {
		var paths = Object.keys(found).sort();

		for (var i = 0; i < paths.length; i++)
			if (paths[i].slice(-ext.length) === ext)
				return found[paths[i]];
		return "";
	}

	/*
	 * Put the SVG text into #picture, as SVG, without scripts or handlers;
	 * the text itself, as the generator wrote it, in #picture-source.
	 */
	function showPicture(text) {
		var box = $("picture");

		$("picture-source").textContent = text;
		box.textContent = "";
		if (!/^<svg[\s>]/.test(text))
			return;
		var doc = new DOMParser().parseFromString(text, "image/svg+xml");
		var svg = doc.documentElement;
		if (!svg || svg.localName !== "svg" || doc.getElementsByTagName("parsererror").length)
			return;
		var all = svg.querySelectorAll("*"), nodes = [svg];
		for (var i = 0; i < all.length; i++)
			nodes.push(all[i]);
		for (i = 0; i < nodes.length; i++) {
			var el = nodes[i];
			if (/^(script|foreignObject|iframe)$/i.test(el.localName)) {
				el.parentNode.removeChild(el);
				continue;
			}
			for (var k = el.attributes.length - 1; k >= 0; k--) {
				var a = el.attributes[k];
				if (/^on/i.test(a.name) || /^\s*javascript:/i.test(a.value))
					el.removeAttribute(a.name);
			}
		}
		box.appendChild(document.importNode(svg, true));
	}

	function setText(id, text) {
		var el = $(id);

		if (el.textContent !== text)
			el.textContent = text;
		var box = el.hasAttribute("data-hide-empty") ? el : null;
		if (box)
			box.hidden = text === "";
	}

	function commandLine(words) {
		return "bcastgen" + words.map(function (w) {
			return " " + quote(w);
		}).join("");
	}

	/* Show the labels in the chosen language. */
	function label() {
		var t = TEXT[lang()], els = document.querySelectorAll("[data-text]");

		document.documentElement.lang = lang() === "zh" ? "zh-CN" : "en";
		document.title = t.title;
		for (var i = 0; i < els.length; i++)
			els[i].textContent = t[els[i].getAttribute("data-text")];
	}

	/*
	 * Bring the results up to date with the inputs. Updates are made one
	 * at a time; a newer one makes an older one stop before it shows
	 * anything. Returns a promise of the update.
	 */
	var seq = 0, queue = Promise.resolve();

	function update() {
		var my = ++seq;

		setText("status", "");
		document.documentElement.setAttribute("data-state", "running");
		queue = queue.then(function () {
			if (my === seq)
				return refresh(my);
		});
		return queue;
	}

	function refresh(my) {
		var t = TEXT[lang()], spec = $("spec").value, text = $("words").value;
		var D = $("depth").value, L = lang();
		var words, inputs = {}, runs;

		document.documentElement.setAttribute("data-state", "running");
		setText("status", "");
		$("progress").textContent = t.running;
		if (/\S/.test(spec)) {
			words = [SPEC, "-o", "spec.c"];
			inputs[SPEC] = spec;
			runs = [words, null, null];
			setText("words-error", "");
		} else {
			var got = split(text);
			setText("words-error", got.error || "");
			if (got.error) {
				["commands", "status", "error", "explain", "explain-error", "kernel",
				 "header", "output", "picture-error"].forEach(function (id) {
					setText(id, "");
				});
				showPicture("");
				return finish(my);
			}
			words = got.words;
			var explain = withDefaults(words, [["--explain", D], ["--lang", L]]);
			var picture = withDefaults(withoutFiles(words),
				[["--explain", D], ["--lang", L], ["--format", "svg"]]);
			runs = [words, explain, picture];
		}
		$("commands").textContent = runs.filter(Boolean).map(commandLine).join("\n");
		var same = runs[1] && runs[1].join("\0") === words.join("\0") && runs[1].length === words.length;
		var results = [];
		var chain = Promise.resolve();
		runs.forEach(function (w, k) {
			chain = chain.then(function () {
				if (my !== seq || !w)
					return null;
				if (k === 1 && same)
					return results[0];
				return run(w, k === 0 ? inputs : {});
			}).then(function (r) {
				results[k] = r;
			});
		});
		return chain.then(function () {
			if (my !== seq)
				return;
			var r = results[0], e = results[1], p = results[2];
			setText("status", r.status === null ? "" : String(r.status));
			setText("error", r.stderr + (r.fail ? fmt(t.failed, r.fail) + "\n" : ""));
			setText("output", r.stdout);
			setText("kernel", pick(r.files, ".c"));
			setText("header", pick(r.files, ".h"));
			setText("explain", e ? e.stdout : "");
			setText("explain-error", e && e !== r ? e.stderr + (e.fail ? fmt(t.failed, e.fail) + "\n" : "") : "");
			showPicture(p ? p.stdout : "");
			setText("picture-error", p ? p.stderr + (p.fail ? fmt(t.failed, p.fail) + "\n" : "") : "");
			return finish(my);
		});
	}

	function finish(my) {
		if (my !== seq)
			return;
		var runs = Number(document.documentElement.getAttribute("data-runs") || 0) + 1;
		document.documentElement.setAttribute("data-runs", String(runs));
		if (runs === 1)
			document.documentElement.setAttribute("data-ready-ms",
				String(Math.round(performance.now())));
		document.documentElement.setAttribute("data-state", "ready");
		$("progress").textContent = TEXT[lang()].done;
	}

	/* The words in the fragment, URL-encoded; rewritten as the user types. */
	function fromFragment() {
		var h = location.hash.replace(/^#/, "");

		try {
			return decodeURIComponent(h);
		} catch (e) {
			return h;
		}
	}

	function toFragment() {
		var frag = "#" + encodeURIComponent($("words").value);

		if (location.hash === frag || (frag === "#" && location.hash === ""))
			return;
		try {
			history.replaceState(history.state, "", frag);
		} catch (e) {
			location.replace(frag);
		}
	}

	var timer = null;

	/*
	 * An update in a moment: until it is made, #status is empty, so that
	 * no one takes the results shown for those of the new inputs.
	 */
	function soon() {
		clearTimeout(timer);
		setText("status", "");
		document.documentElement.setAttribute("data-state", "running");
		timer = setTimeout(update, 150);
	}

	function start() {
		var initial = location.hash.length > 1 ? fromFragment() : $("words").value;

		if (/^zh\b/i.test(navigator.language || ""))
			$("lang").value = "zh";
		$("words").value = initial;
		label();
		$("progress").textContent = TEXT[lang()].loading;
		$("words").addEventListener("input", function () {
			toFragment();
			soon();
		});
		$("words").addEventListener("keydown", function (ev) {
			if (ev.key === "Enter") {
				ev.preventDefault();
				clearTimeout(timer);
				update();
			}
		});
		$("spec").addEventListener("input", soon);
		$("spec").addEventListener("keydown", function (ev) {
			if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
				ev.preventDefault();
				clearTimeout(timer);
				update();
			}
		});
		$("lang").addEventListener("change", function () {
			label();
			update();
		});
		$("depth").addEventListener("change", update);
		$("controls").addEventListener("submit", function (ev) {
			ev.preventDefault();
			clearTimeout(timer);
			update();
		});
		window.addEventListener("hashchange", function () {
			var text = fromFragment();
			if (text !== $("words").value) {
				$("words").value = text;
				update();
			}
		});
		update();
	}

	/* For tests and the console: the splitter, one run, the settled state. */
	window.bcastgenPlayground = {
		split: split,
		run: run,
		update: update,
		settled: function () {
			clearTimeout(timer);
			return update();
		}
	};

	compile();
	if (document.readyState === "loading")
		document.addEventListener("DOMContentLoaded", start);
	else
		start();
})();
