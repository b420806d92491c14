// cutline-review: pi holds each compaction until a person answers in cutline (installed by `cutline hook install pi`).
//
// On `session_before_compact` this hands pi's preparation to cutline over its private Unix socket
// and waits: accept -> pi writes the person's summary with pi's own cut; reject -> the compaction
// is cancelled; past the timeout -> pi's own summary goes ahead (cutline's inbox says so).
// When nothing of cutline listens (no desk, no `cutline inbox --watch`) it steps aside at once.
// Settings: CUTLINE_SOCKET and CUTLINE_REVIEW_TIMEOUT (seconds) override the installed ones below.
import net from "node:net";

const CONFIG = /* cutline:config */ { socket: null, timeoutSeconds: 900 } /* cutline:end */;
const CONNECT_MS = 1000;
const RECONNECT_MS = 500;
const MAX_WAIT_MS = 2 ** 31 - 1;

function jsonSafe(_key, value) {
	if (value instanceof Set) return [...value];
	if (value instanceof Map) return Object.fromEntries(value);
	if (typeof value === "bigint") return Number(value);
	return value;
}

function connect(path, ms) {
	return new Promise((resolve) => {
		const sock = net.createConnection(path);
		const timer = setTimeout(() => {
			sock.destroy();
			resolve(null);
		}, ms);
		sock.once("connect", () => {
			clearTimeout(timer);
			resolve(sock);
		});
		sock.once("error", () => {
			clearTimeout(timer);
			sock.destroy();
			resolve(null);
		});
	});
}

function lineReader(sock) {
	let buffer = "";
	let closed = false;
	let wake = null;
	const queue = [];
	sock.setEncoding("utf8");
	sock.on("data", (data) => {
		buffer += data;
		let at;
		while ((at = buffer.indexOf("\n")) >= 0) {
			const line = buffer.slice(0, at);
			buffer = buffer.slice(at + 1);
			try {
				queue.push(JSON.parse(line));
			} catch {
				queue.push({ type: "refused", reason: "cutline sent a line that is not JSON" });
			}
		}
		if (wake) wake();
	});
	const end = () => {
		closed = true;
		if (wake) wake();
	};
	sock.on("close", end);
	sock.on("error", end);
	return async function next(ms, signal) {
		for (;;) {
			if (queue.length) return queue.shift();
			if (closed) return "closed";
			if (signal?.aborted) return "aborted";
			const woke = await new Promise((resolve) => {
				const onAbort = () => finish("aborted");
				const timer = setTimeout(() => finish("timeout"), Math.max(1, Math.min(ms, MAX_WAIT_MS)));
				function finish(why) {
					clearTimeout(timer);
					signal?.removeEventListener("abort", onAbort);
					wake = null;
					resolve(why);
				}
				wake = () => finish(null);
				signal?.addEventListener("abort", onAbort, { once: true });
			});
			if (woke) return woke;
		}
	};
}

function tell(ctx, text, level = "info") {
	try {
		if (ctx.hasUI) {
			ctx.ui.notify(text, level);
			return;
		}
	} catch {
		// fall through to stderr
	}
	process.stderr.write(`${text}\n`);
}

function send(sock, message) {
	try {
		sock.write(`${JSON.stringify(message)}\n`);
	} catch {
		// the listener is gone; nothing to tell it
	}
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export default function cutlineReview(pi) {
	pi.on("session_before_compact", async (event, ctx) => {
		const socketPath = process.env.CUTLINE_SOCKET || CONFIG.socket;
		if (!socketPath) return undefined;
		const timeoutSeconds = Number(process.env.CUTLINE_REVIEW_TIMEOUT || CONFIG.timeoutSeconds) || 900;
		const deadline = Date.now() + timeoutSeconds * 1000;
		const signal = event.signal;
		let sock = await connect(socketPath, CONNECT_MS);
		if (!sock) return undefined; // nothing of cutline listens: pi compacts on its own
		const sessions = ctx.sessionManager;
		let message;
		try {
			message = JSON.stringify(
				{
					type: "hold",
					agent: "pi",
					sessionFile: sessions?.getSessionFile?.() ?? null,
					sessionId: sessions?.getSessionId?.() ?? null,
					cwd: ctx.cwd ?? null,
					reason: event.reason ?? (event.customInstructions ? "manual" : null), // pi 0.73 does not say
					timeoutSeconds,
					customInstructions: event.customInstructions ?? null,
					preparation: event.preparation,
				},
				jsonSafe,
			);
		} catch (error) {
			sock.destroy();
			tell(ctx, `cutline: cannot send this compaction for review (${error}); pi compacts on its own`, "warning");
			return undefined;
		}
		let id = null;
		for (;;) {
			sock.write(`${message}\n`);
			const next = lineReader(sock);
			for (;;) {
				const reply = await next(deadline - Date.now(), signal);
				if (reply === "closed") break;
				if (reply === "aborted") {
					if (id) send(sock, { type: "withdraw", id });
					sock.end();
					return undefined;
				}
				if (reply === "timeout") {
					if (id) send(sock, { type: "timeout", id });
					sock.end();
					tell(ctx, `cutline: no answer to ${id} in ${timeoutSeconds} s; pi's own summary goes ahead`, "warning");
					return undefined;
				}
				if (reply.type === "held") {
					if (!id) {
						id = reply.id;
						tell(
							ctx,
							`cutline: compaction ${id} waits for your review: answer in the cutline desk, or \`cutline accept ${id}\` / \`cutline reject ${id}\``,
						);
					}
				} else if (reply.type === "refused") {
					sock.destroy();
					tell(ctx, `cutline refused the compaction (${reply.reason}); pi compacts on its own`, "warning");
					return undefined;
				} else if (reply.type === "answer") {
					sock.end();
					if (reply.decision === "accept" && reply.compaction && typeof reply.compaction.summary === "string") {
						const c = reply.compaction;
						return {
							compaction: {
								summary: c.summary,
								firstKeptEntryId: c.firstKeptEntryId ?? event.preparation.firstKeptEntryId,
								tokensBefore: c.tokensBefore ?? event.preparation.tokensBefore,
								details: c.details,
							},
						};
					}
					if (reply.decision === "reject") {
						tell(ctx, `cutline: compaction ${id} rejected`);
						return { cancel: true };
					}
					return undefined;
				}
			}
			sock.destroy();
			if (!id) return undefined; // the listener went away before it held anything
			// the listener went away (a desk quit): wait for the next one and resume the same wait
			sock = null;
			while (!sock) {
				if (Date.now() >= deadline || signal?.aborted) return undefined;
				await sleep(RECONNECT_MS);
				sock = await connect(socketPath, CONNECT_MS);
			}
			message = JSON.stringify({ type: "resume", id });
		}
	});
}
