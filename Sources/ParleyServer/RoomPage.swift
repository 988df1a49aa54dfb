import HTTPWire
import ParleyCore
import PlatformCore

/// `GET /rooms/{name}`: one self-contained HTML page (inline CSS and script, nothing fetched from
/// elsewhere) that joins the video room `name` over `/v1/signaling` (docs/signaling.md §12) with
/// the browser's camera and microphone, and shows a tile per remote participant and a chat box
/// over the room's data tracks.
///
/// The access token never reaches this resource: the page reads it from the URL fragment
/// (`#token=…`, which browsers do not send) or a text box, and sends it in `hello`. So the page
/// needs no auth, and every room name gets the same bytes (the script reads the name from the path).
/// `window.parleyRoom` is the page's state as a JSON-able object, for tests (`RoomPageScript`).
struct RoomPage: APIEndpoint {
    static let prefix = "/rooms/"

    /// `/rooms/` followed by one non-empty path segment.
    func matches(_ path: String) -> Bool {
        guard path.hasPrefix(Self.prefix) else { return false }
        let name = path.dropFirst(Self.prefix.count)
        return !name.isEmpty && !name.contains("/")
    }

    /// No credentials: the page holds no data, and the token stays in the browser.
    func admit(_ head: HTTPRequest, router: APIRouter) async -> HTTPResponse? { nil }

    func handle(_ request: HTTPRequest, router: APIRouter) async -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = APIErrorResponse.make(ParleyError(.badRequest, reason: "method \(request.method) not allowed"),
                                                 status: 405)
            response.headers.set("Allow", "GET, HEAD")
            return response
        }
        return HTTPResponse(status: 200, headers: Self.headers, body: Self.body)
    }

    /// Same-origin only: inline script and style, the WebSocket back to this server, media from
    /// the browser's own streams; no referrer, so the fragment's token cannot leak.
    static let headers: HTTPHeaders = [
        "Content-Type": "text/html; charset=utf-8",
        "Cache-Control": "no-store",
        "Content-Security-Policy": "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
            + "connect-src 'self'; media-src 'self' blob: mediastream:; img-src data:; base-uri 'none'; form-action 'none'",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
    ]

    static let body = Array(html.utf8)

    static let html = #"""
<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parley room</title>
<style>
:root { color-scheme: dark; font-family: system-ui, sans-serif; }
body { margin: 0; background: #111; color: #eee; display: flex; flex-direction: column; min-height: 100vh; }
header, footer { display: flex; gap: .75rem; align-items: center; padding: .6rem 1rem; background: #1c1c1c; }
header h1 { font-size: 1.1rem; margin: 0; }
#status { color: #9ab; font-size: .9rem; }
#error { margin: .6rem 1rem; padding: .6rem .8rem; background: #4a1515; border: 1px solid #a33; border-radius: 6px; }
#join { margin: .6rem 1rem; display: flex; gap: .5rem; }
#join input { flex: 1; min-width: 10rem; }
#tiles { flex: 1; display: grid; grid-template-columns: repeat(auto-fill, minmax(280px, 1fr)); gap: .6rem; padding: .6rem 1rem; align-content: start; }
.tile { position: relative; margin: 0; background: #000; border-radius: 8px; overflow: hidden; aspect-ratio: 4 / 3; }
.tile video { width: 100%; height: 100%; object-fit: cover; display: block; }
.tile figcaption { position: absolute; left: .4rem; bottom: .4rem; display: flex; gap: .3rem; }
.tile figcaption span { background: rgba(0, 0, 0, .65); padding: .1rem .4rem; border-radius: 4px; font-size: .85rem; }
.badge { color: #f88; }
.tile.speaking { outline: 3px solid #4c8; outline-offset: -3px; }
footer { justify-content: center; }
button { font: inherit; padding: .35rem .9rem; border-radius: 6px; border: 1px solid #555; background: #2a2a2a; color: inherit; cursor: pointer; }
button:disabled { opacity: .45; cursor: default; }
button[aria-pressed="true"] { background: #5a2a2a; }
#chat { margin: 0 1rem .6rem; }
#messages { max-height: 10rem; overflow-y: auto; margin: 0 0 .4rem; padding-left: 1.2rem; font-size: .9rem; }
#say { display: flex; gap: .5rem; }
#say input { flex: 1; }
[hidden] { display: none !important; }
</style></head>
<body>
<header><h1 id="title">Room</h1><span id="status">starting</span></header>
<form id="join" hidden><input id="token" type="password" placeholder="access token (video grant)" autocomplete="off" aria-label="access token"><button type="submit">Join</button></form>
<div id="error" role="alert" hidden></div>
<main id="tiles"><figure class="tile" id="self"><video id="local" muted autoplay playsinline></video><figcaption><span>you</span></figcaption></figure></main>
<section id="chat" aria-label="messages"><ol id="messages"></ol>
<form id="say" hidden><input id="text" maxlength="4000" placeholder="message to the room" autocomplete="off" aria-label="message"><button type="submit">Send</button></form></section>
<footer>
<button id="mic" disabled aria-pressed="false">Mute mic</button>
<button id="cam" disabled aria-pressed="false">Camera off</button>
<button id="unmute" hidden>Play audio</button>
<button id="leave" disabled>Leave</button>
</footer>
<script>
"""# + RoomPageScript.source + #"""
</script>
</body></html>
"""#
}
