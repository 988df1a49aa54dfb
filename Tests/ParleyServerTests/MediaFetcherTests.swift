import AudioCore
import HTTPWire
import ParleyNet
@testable import ServerMedia
import Synchronization
import Testing

/// `<Play>` fetching against an in-process ParleyNet `HTTPServer`.
@Suite struct MediaFetcherTests {
    static let tone = WAVFile(sampleRate: 16_000, channels: 1, samples: MediaSignal.sine(800, rate: 16_000, seconds: 1)).serialized

    /// Serves the test files and counts requests per path.
    final class FileServer: Sendable {
        final class Hits: Sendable {
            let paths = Mutex<[String: Int]>([:])
        }

        let server: HTTPServer
        let hits = Hits()

        init() throws {
            let hits = self.hits
            server = HTTPServer(configuration: .init()) { request in
                hits.paths.withLock { $0[request.path, default: 0] += 1 }
                switch request.path {
                case "/tone.wav":
                    return HTTPResponse(status: 200, headers: ["Content-Type": "audio/wav"], body: MediaFetcherTests.tone)
                case "/untyped":
                    return HTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: MediaFetcherTests.tone)
                case "/moved":
                    return HTTPResponse(status: 302, headers: ["Location": "/tone.wav?from=moved"])
                case "/song.mp3":
                    return HTTPResponse(status: 200, headers: ["Content-Type": "audio/mpeg"], body: [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 400))
                case "/big.wav":
                    let samples = [Int16](repeating: 1, count: 100_000)
                    return HTTPResponse(status: 200, headers: ["Content-Type": "audio/wav"],
                                        body: WAVFile(sampleRate: 8_000, channels: 1, samples: samples).serialized)
                default:
                    return HTTPResponse(status: 404)
                }
            }
            try server.start()
        }

        var base: String { "http://127.0.0.1:\(server.localPort)" }
        func count(_ path: String) -> Int { hits.paths.withLock { $0[path] ?? 0 } }
    }

    @Test func wavIsFetchedDecodedAndCached() async throws {
        let files = try FileServer()
        let fetcher = try MediaFetcher()
        let audio = try await fetcher.audio(for: files.base + "/tone.wav")
        #expect(audio.samples.count == 48_000)
        #expect(MediaSignal.strongest(audio.samples[4_800..<43_200], of: [400, 800, 1_600], rate: 48_000) == 800)
        let again = try await fetcher.audio(for: files.base + "/tone.wav")
        #expect(again == audio)
        #expect(files.count("/tone.wav") == 1)
        #expect(await fetcher.cacheUsage.entries == 1)
        await fetcher.shutdown()
        await files.server.shutdown()
    }

    @Test func untypedWAVAndRedirectsArePlayed() async throws {
        let files = try FileServer()
        let fetcher = try MediaFetcher()
        #expect(try await fetcher.audio(for: files.base + "/untyped").samples.count == 48_000)
        #expect(try await fetcher.audio(for: files.base + "/moved").samples.count == 48_000)
        #expect(files.count("/moved") == 1 && files.count("/tone.wav") == 1)
        await fetcher.shutdown()
        await files.server.shutdown()
    }

    @Test func mp3IsRefusedAsUnsupported() async throws {
        let files = try FileServer()
        let fetcher = try MediaFetcher()
        do {
            _ = try await fetcher.audio(for: files.base + "/song.mp3")
            Issue.record("MP3 was accepted")
        } catch {
            #expect(error.kind == .unsupportedFormat)
            #expect(error.message.contains("MP3 is not supported"))
        }
        await fetcher.shutdown()
        await files.server.shutdown()
    }

    @Test func oversizeBodyIsRefused() async throws {
        let files = try FileServer()
        let fetcher = try MediaFetcher(configuration: .init(maximumBytes: 100_000))
        do {
            _ = try await fetcher.audio(for: files.base + "/big.wav")
            Issue.record("200 kB body was accepted")
        } catch {
            #expect(error.kind == .tooLarge, "\(error)")
        }
        await fetcher.shutdown()
        await files.server.shutdown()
    }

    @Test func missingFilesAndBadSchemesFail() async throws {
        let files = try FileServer()
        let fetcher = try MediaFetcher()
        for url in [files.base + "/nothing.wav", "ftp://example.com/a.wav", "file:///etc/passwd"] {
            do {
                _ = try await fetcher.audio(for: url)
                Issue.record("\(url) was accepted")
            } catch {
                #expect(error.kind == .fetchFailed)
            }
        }
        await fetcher.shutdown()
        await files.server.shutdown()
    }

    @Test func cacheEvictsTheLeastRecentlyUsed() {
        var cache = PCMAudioCache<String>(maximumBytes: 1_000, maximumEntries: 10)
        let audio = PCMAudio(samples: [Int16](repeating: 0, count: 200))  // 400 bytes
        cache.insert(audio, for: "a")
        cache.insert(audio, for: "b")
        _ = cache.value(for: "a")
        cache.insert(audio, for: "c")
        #expect(cache.value(for: "b") == nil)
        #expect(cache.value(for: "a") != nil && cache.value(for: "c") != nil)
        #expect(cache.bytes == 800)
        cache.insert(PCMAudio(samples: [Int16](repeating: 0, count: 600)), for: "huge")
        #expect(cache.value(for: "huge") == nil && cache.count == 2)
    }

    @Test(arguments: [
        ("/x.wav", "http://h:1/a/b.wav?q=1", "http://h:1/x.wav"),
        ("x.wav", "http://h/a/b.wav", "http://h/a/x.wav"),
        ("//cdn/x.wav", "https://h/a", "https://cdn/x.wav"),
        ("https://o/x.wav", "http://h/", "https://o/x.wav"),
    ])
    func redirectLocationsResolve(_ location: String, _ base: String, _ expected: String) {
        #expect(MediaFetcher.resolve(location, against: base) == expected)
    }

    @Test func logsNeverShowQueryOrUserInfo() {
        #expect(MediaFetcher.redacted("https://user:secret@h.example/a.wav?token=abc") == "https://h.example/a.wav")
    }
}
