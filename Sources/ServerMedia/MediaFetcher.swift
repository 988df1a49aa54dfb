import Foundation
import HTTPWire
import ParleyCore
import ParleyNet
import PlatformCore

/// `<Play>`: fetches an audio URL over http or https, decodes it and caches the decoded audio per
/// URL (least recently used, bounded by bytes and entries). Concurrent requests for one URL share
/// one download. Redirects (301, 302, 303, 307, 308) are followed up to `maximumRedirects`.
///
/// Only WAV is played: `audio/wav`, `audio/x-wav`, `audio/wave`, `audio/vnd.wave`, or any type
/// whose body starts with `RIFF…WAVE`. Linear PCM, float and G.711 µ-law/A-law WAVs are read.
/// MP3 (`audio/mpeg`) and other compressed formats are refused with `.unsupportedFormat`: this
/// server has no MP3 decoder.
public actor MediaFetcher {
    public struct Configuration: Sendable {
        /// Largest response body accepted (16 MB by default).
        public var maximumBytes: Int
        /// Decoded audio is cut at this length (600 s = 55 MB at 48 kHz).
        public var maximumSeconds: Double
        public var cacheBytes: Int
        public var cacheEntries: Int
        public var timeout: Duration
        public var maximumRedirects: Int

        public init(maximumBytes: Int = 16 << 20, maximumSeconds: Double = 600, cacheBytes: Int = 128 << 20,
                    cacheEntries: Int = 64, timeout: Duration = .seconds(30), maximumRedirects: Int = 3) {
            self.maximumBytes = maximumBytes
            self.maximumSeconds = maximumSeconds
            self.cacheBytes = cacheBytes
            self.cacheEntries = cacheEntries
            self.timeout = timeout
            self.maximumRedirects = maximumRedirects
        }
    }

    static let wavTypes: Set<String> = ["audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"]

    public let configuration: Configuration
    private let client: HTTPClient
    private let ownsClient: Bool
    private var cache: PCMAudioCache<String>
    private var inFlight: [String: Task<Result<PCMAudio, MediaError>, Never>] = [:]

    /// Uses `client` when given (its own body limit also applies), or creates one whose body
    /// limit is `maximumBytes`.
    public init(client: HTTPClient? = nil, configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        if let client {
            self.client = client
            ownsClient = false
        } else {
            self.client = try HTTPClient(configuration: .init(maxResponseBodyBytes: configuration.maximumBytes))
            ownsClient = true
        }
        cache = PCMAudioCache(maximumBytes: configuration.cacheBytes, maximumEntries: configuration.cacheEntries)
    }

    /// Stops the client this fetcher created.
    public func shutdown() {
        if ownsClient { client.shutdown() }
    }

    /// Audio in the cache (entries, bytes), for metrics.
    public var cacheUsage: (entries: Int, bytes: Int) { (cache.count, cache.bytes) }

    /// The decoded audio at `url` (absolute http or https), from the cache when present.
    public func audio(for url: String) async throws(MediaError) -> PCMAudio {
        if let hit = cache.value(for: url) { return hit }
        if let pending = inFlight[url] { return try await pending.value.get() }
        let task = Task { await self.download(url) }
        inFlight[url] = task
        let result = await task.value
        inFlight[url] = nil
        if case .success(let audio) = result { cache.insert(audio, for: url) }
        return try result.get()
    }

    /// Forgets every cached file.
    public func removeAllCached() { cache.removeAll() }

    private func download(_ url: String) async -> Result<PCMAudio, MediaError> {
        var location = url
        for _ in 0...max(0, configuration.maximumRedirects) {
            let lower = location.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
                return .failure(MediaError(.fetchFailed, "<Play> URL must be http or https: \(Self.redacted(location))"))
            }
            let response: HTTPResponse
            do {
                response = try await client.get(location, timeout: configuration.timeout)
            } catch let error where Self.isBodyTooLarge(error) {
                return .failure(MediaError(.tooLarge, "GET \(Self.redacted(location)): body exceeds \(configuration.maximumBytes) bytes"))
            } catch {
                return .failure(MediaError(.fetchFailed, "GET \(Self.redacted(location)): \(error)"))
            }
            if [301, 302, 303, 307, 308].contains(response.status), let next = response.headers["Location"] {
                location = Self.resolve(next, against: location)
                continue
            }
            return decode(response, url: location)
        }
        return .failure(MediaError(.fetchFailed, "GET \(Self.redacted(url)): more than \(configuration.maximumRedirects) redirects"))
    }

    private func decode(_ response: HTTPResponse, url: String) -> Result<PCMAudio, MediaError> {
        guard response.status == 200 else {
            return .failure(MediaError(.fetchFailed, "GET \(Self.redacted(url)): status \(response.status)"))
        }
        guard response.body.count <= configuration.maximumBytes else {
            return .failure(MediaError(.tooLarge, "\(Self.redacted(url)): \(response.body.count) bytes exceeds \(configuration.maximumBytes)"))
        }
        let type = (response.headers["Content-Type"] ?? "").split(separator: ";").first
            .map { $0.trimmingSpaces().lowercased() } ?? ""
        let looksLikeWAV = response.body.count >= 12 && response.body[0..<4].elementsEqual("RIFF".utf8)
            && response.body[8..<12].elementsEqual("WAVE".utf8)
        guard looksLikeWAV else {
            let kind = type == "audio/mpeg" || type == "audio/mp3" ? "MP3 is not supported; use WAV"
                : Self.wavTypes.contains(type) ? "the body is not a RIFF/WAVE file"
                : "\(type.isEmpty ? "untyped content" : type) is not supported; use WAV (audio/wav)"
            return .failure(MediaError(.unsupportedFormat, "\(Self.redacted(url)): \(kind)"))
        }
        do {
            return .success(try PCMAudio(wavBytes: response.body, maximumSeconds: configuration.maximumSeconds))
        } catch {
            return .failure(MediaError(error.kind, "\(Self.redacted(url)): \(error.message)"))
        }
    }

    /// The client's refusal of a body over its limit (a parse error, wrapped by the connection).
    static func isBodyTooLarge(_ error: any Error) -> Bool {
        if case HTTPParseError.bodyTooLarge = error { return true }
        if case NetError.protocolViolation(let message) = error { return message == "\(HTTPParseError.bodyTooLarge)" }
        return false
    }

    /// A `Location` value made absolute against the URL it came from.
    static func resolve(_ location: String, against base: String) -> String {
        if location.contains("://") { return location }
        guard let schemeEnd = base.range(of: "://") else { return location }
        let afterScheme = base[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        let origin = String(base[..<authorityEnd])
        if location.hasPrefix("//") { return String(base[..<schemeEnd.lowerBound]) + ":" + location }
        if location.hasPrefix("/") { return origin + location }
        let path = afterScheme[authorityEnd...].prefix { $0 != "?" && $0 != "#" }
        let directory = path.lastIndex(of: "/").map { String(path[...$0]) } ?? "/"
        return origin + directory + location
    }

    /// The URL without user info or query, for logs (query strings may carry tokens).
    static func redacted(_ url: String) -> String { URLRedaction.redacted(url) }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
