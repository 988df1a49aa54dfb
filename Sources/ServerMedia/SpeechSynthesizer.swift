import Foundation
import ParleyCore

/// `<Say>`: text to 48 kHz speech through `espeak-ng`, run as a subprocess (text on stdin, a WAV
/// on stdout), off the media clock and off Swift's cooperative threads. Results are cached by
/// (text, voice, language) within a byte bound; concurrent requests for the same speech share one
/// run, and at most `maximumConcurrentRuns` synthesizers run at once.
///
/// When espeak-ng is not installed every call throws `.speechUnavailable`, so the engine can play
/// a tone and log instead.
public actor SpeechSynthesizer {
    public struct Configuration: Sendable {
        /// The espeak-ng executable; nil searches `PATH`.
        public var executablePath: String?
        /// Speaking rate in words per minute (espeak-ng's default is 175).
        public var wordsPerMinute: Int
        /// Longer text is refused (TwiML allows 4,096 characters per `<Say>`).
        public var maximumCharacters: Int
        /// A run that takes longer is killed.
        public var timeout: Duration
        public var maximumConcurrentRuns: Int
        public var cacheBytes: Int
        public var cacheEntries: Int

        public init(executablePath: String? = nil, wordsPerMinute: Int = 160, maximumCharacters: Int = 4_096,
                    timeout: Duration = .seconds(30), maximumConcurrentRuns: Int = 2,
                    cacheBytes: Int = 32 << 20, cacheEntries: Int = 256) {
            self.executablePath = executablePath
            self.wordsPerMinute = wordsPerMinute
            self.maximumCharacters = maximumCharacters
            self.timeout = timeout
            self.maximumConcurrentRuns = maximumConcurrentRuns
            self.cacheBytes = cacheBytes
            self.cacheEntries = cacheEntries
        }
    }

    struct Key: Hashable, Sendable {
        var text: String
        var voice: String
        var language: String
    }

    public let configuration: Configuration
    /// The espeak-ng found at creation, nil when it is not installed.
    public nonisolated let executable: String?
    private var cache: PCMAudioCache<Key>
    private var inFlight: [Key: Task<Result<PCMAudio, MediaError>, Never>] = [:]
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        executable = configuration.executablePath.flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil }
            ?? (configuration.executablePath == nil ? Subprocess.findInPath("espeak-ng") : nil)
        cache = PCMAudioCache(maximumBytes: configuration.cacheBytes, maximumEntries: configuration.cacheEntries)
    }

    /// Whether `<Say>` can speak here.
    public nonisolated var isAvailable: Bool { executable != nil }

    /// Speech in the cache (entries, bytes), for metrics.
    public var cacheUsage: (entries: Int, bytes: Int) { (cache.count, cache.bytes) }

    /// Speaks `text` with a TwiML `voice` (`man`, `woman`, `alice`, `Polly.*`…) and `language`
    /// (BCP 47, `en-US` by default). Empty text gives empty audio.
    public func synthesize(_ text: String, voice: String? = nil, language: String? = nil) async throws(MediaError) -> PCMAudio {
        guard let executable else {
            throw MediaError(.speechUnavailable, "espeak-ng is not installed (apt install espeak-ng); <Say> cannot speak")
        }
        guard text.count <= configuration.maximumCharacters else {
            throw MediaError(.invalidInput, "<Say> text of \(text.count) characters exceeds \(configuration.maximumCharacters)")
        }
        if text.allSatisfy(\.isWhitespace) { return PCMAudio(samples: []) }
        let key = Key(text: text, voice: SpeechVoice.variant(for: voice), language: language?.lowercased() ?? SpeechVoice.defaultLanguage)
        if let hit = cache.value(for: key) { return hit }
        if let pending = inFlight[key] { return try await pending.value.get() }
        let task = Task { await self.run(executable: executable, key: key, languages: SpeechVoice.languages(for: language)) }
        inFlight[key] = task
        let result = await task.value
        inFlight[key] = nil
        if case .success(let audio) = result { cache.insert(audio, for: key) }
        return try result.get()
    }

    private func run(executable: String, key: Key, languages: [String]) async -> Result<PCMAudio, MediaError> {
        await acquire()
        defer { release() }
        var lastError = MediaError(.speechFailed, "espeak-ng produced no audio")
        for language in languages {
            let arguments = ["-v", language + key.voice, "-s", String(configuration.wordsPerMinute), "--stdout"]
            let outcome = await Self.runProcess(executable, arguments: arguments, input: Array(key.text.utf8),
                                                timeout: configuration.timeout)
            switch outcome {
            case .success(let wav):
                do {
                    return .success(try PCMAudio(wavBytes: wav))
                } catch {
                    return .failure(MediaError(.speechFailed, "espeak-ng output: \(error)"))
                }
            case .failure(let error):
                lastError = error
                // Only a missing voice is worth another language; anything else fails now.
                guard error.message.contains("voice does not exist") else { return .failure(error) }
                Log.debug(.platform, "espeak-ng has no voice \(language + key.voice); trying the next")
            }
        }
        return .failure(lastError)
    }

    private func acquire() async {
        if running < max(1, configuration.maximumConcurrentRuns) {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }

    /// Runs espeak-ng through `Subprocess`: stdout, or the first stderr line when it exits non-zero.
    static func runProcess(_ path: String, arguments: [String], input: [UInt8],
                           timeout: Duration) async -> Result<[UInt8], MediaError> {
        guard let outcome = await Subprocess.run(path, arguments: arguments, input: input, timeout: timeout) else {
            return .failure(MediaError(.speechUnavailable, "cannot run \(path)"))
        }
        guard outcome.succeeded else {
            let why = outcome.killed ? "killed after \(timeout)" : "status \(outcome.status)"
            return .failure(MediaError(.speechFailed, "espeak-ng failed (\(why))\(outcome.firstErrorLine.map { ": " + $0 } ?? "")"))
        }
        return .success(outcome.stdout)
    }
}
