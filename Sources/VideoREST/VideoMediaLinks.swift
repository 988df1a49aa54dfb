import Foundation
import HTTPWire
import JSONWire
import ParleyCrypto
import ParleyStore
import PlatformCore

/// The media of recordings and compositions as the vendor hands it out: `GET …/Media` (Basic
/// auth) answers `302 Found` with the file's temporary URL in `Location` and in a JSON body
/// (`{"redirect_to": …}`, what the vendor's samples read), and that URL serves the bytes to
/// whoever holds it until it expires: `…/Media/Content?Expires=T&Signature=S`, S the hex
/// HMAC-SHA256 under the account's auth token of the path and T (so rotating the token revokes
/// every URL handed out).
enum VideoMediaLinks {
    /// How long a handed-out URL works (the vendor's are valid for 600 s).
    static let lifetime: Int64 = 600
    /// Larger files are not served from memory (about 30 minutes of 1 Mbit/s video).
    static let maxBytes = 256 * 1024 * 1024

    /// Whether `path` names signed content (`/v1/Recordings/RT…/Media/Content` or the composition's).
    static func isContent(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 6 && parts[0].isEmpty && parts[1] == "v1" && ["Recordings", "Compositions"].contains(parts[2])
            && parts[4] == "Media" && parts[5] == "Content"
    }

    static func signature(path: String, expires: Int64, authToken: String) -> String {
        Hex.encode(HMAC.sha256(key: Array(authToken.utf8), message: Array("\(path)\n\(expires)".utf8)))
    }

    /// The `302` for a `…/Media` request: the signed content URL, valid `lifetime` seconds from `now`.
    static func redirect(mediaPath: String, base: String, authToken: String, now: Int64) -> HTTPResponse {
        let path = mediaPath + "/Content"
        let expires = now + lifetime
        let url = "\(base)\(path)?" + FormURLEncoding.encode([
            ("Expires", String(expires)), ("Signature", signature(path: path, expires: expires, authToken: authToken)),
        ])
        var response = HTTPResponse.json(JSONValue.object(["redirect_to": .string(url)]).serialized(), status: 302)
        response.headers.set("Location", url)
        return response
    }

    /// Whether a content request carries an unexpired signature of `authToken`.
    static func verify(_ request: HTTPRequest, authToken: String, now: Int64) -> Bool {
        guard let text = request.queryValue("Expires"), let expires = Int64(text), expires >= now,
              let given = request.queryValue("Signature"), !authToken.isEmpty else { return false }
        let expected = signature(path: request.path, expires: expires, authToken: authToken)
        return ConstantTime.equals(Array(expected.utf8), Array(given.utf8))
    }

    /// The file's bytes with its type, or nil when it is missing or too large.
    static func file(_ path: String, contentType: String) -> HTTPResponse? {
        let files = FileManager.default
        guard let size = ((try? files.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue, size <= maxBytes,
              let data = files.contents(atPath: path) else { return nil }
        return HTTPResponse(status: 200, headers: ["Content-Type": contentType], body: Array(data))
    }

    /// The MIME type of a media file by its container.
    static func contentType(container: String, audioOnly: Bool) -> String {
        switch container {
        case "mka": "audio/x-matroska"
        case "mkv": "video/x-matroska"
        case "mp4": audioOnly ? "audio/mp4" : "video/mp4"
        default: audioOnly ? "audio/webm" : "video/webm"
        }
    }
}
