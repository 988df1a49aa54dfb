import ParleyCore
import ParleyOpus
import Synchronization

/// What the server plays into calls: one player for the whole server, driven by the shared
/// `MediaClock`. Each tick, every session with an active playback pulls 20 ms from its source,
/// encodes it (Opus at 48 kHz, or PCMU/PCMA) with the encoder made when the playback started, and
/// hands the payload to the sink. At most one playback per session: starting another replaces it.
///
/// Tests drive `tick()` themselves instead of adding the player to a clock.
public final class CallMediaPlayer: MediaClockTarget {
    public struct Configuration: Sendable {
        /// Opus target bitrate (bits/s) for server media; prompts and tones need little.
        public var opusBitrate: Int32
        /// Opus complexity 0…10; 5 costs about half of 9 at a quality difference no prompt shows.
        public var opusComplexity: Int32
        public var opusApplication: OpusApplication

        public init(opusBitrate: Int32 = 32_000, opusComplexity: Int32 = 5, opusApplication: OpusApplication = .voip) {
            self.opusBitrate = opusBitrate
            self.opusComplexity = opusComplexity
            self.opusApplication = opusApplication
        }
    }

    /// Counters for `/metrics` and for measuring what playback costs.
    public struct Statistics: Sendable, Equatable {
        public var activePlaybacks = 0
        public var ticks = 0
        public var framesSent = 0
        /// Thread CPU time spent inside `tick()` (reading sources, encoding, calling the sink).
        public var cpuNanoseconds: UInt64 = 0
        /// The longest single tick, in CPU nanoseconds.
        public var maximumTickCPUNanoseconds: UInt64 = 0

        /// Average CPU per 20 ms frame, in microseconds.
        public var cpuMicrosecondsPerFrame: Double {
            framesSent > 0 ? Double(cpuNanoseconds) / Double(framesSent) / 1_000 : 0
        }

        /// Share of one core one playing call takes (50 frames a second).
        public var coreFractionPerCall: Double { cpuMicrosecondsPerFrame * 50 / 1_000_000 }
    }

    public let configuration: Configuration
    private let sink: any MediaFrameSink
    private let state = Mutex(State())
    private let stats = Mutex(Statistics())
    private let loops = Mutex<[LoopKey: EncodedLoop]>([:])
    /// Ticked with the player, before its playbacks (conference mixers).
    private let companions = Mutex<[any MediaClockTarget]>([])

    private struct LoopKey: Hashable {
        var media: SharedMedia
        var codec: CallAudioCodec
    }

    private struct State {
        var bySession: [String: PlaybackChannel] = [:]
        /// The same channels as an array, which a tick takes by reference (no copy, no allocation).
        var list: [PlaybackChannel] = []
    }

    public init(sink: any MediaFrameSink, configuration: Configuration = Configuration()) {
        self.sink = sink
        self.configuration = configuration
    }

    /// Plays `source` to `session` in `codec` from the next tick, replacing what that session was
    /// playing. `onEnd` runs once when the playback ends (on the clock's or the stopping thread).
    @discardableResult
    public func start(_ source: some AudioSource, session: String, codec: CallAudioCodec,
                      onEnd: (@Sendable (MediaPlayback.Outcome) -> Void)? = nil) throws(MediaError) -> MediaPlayback {
        let channel = try PlaybackChannel(source: source, session: session, codec: codec,
                                          configuration: configuration, onEnd: onEnd)
        return install(channel)
    }

    /// Plays shared media (ringback, silence, hold music) to `session` until stopped or replaced.
    /// Its frames are encoded once per codec, on the first call that plays it (a few tens of ms,
    /// on the caller's thread), and every later call only hands out the same payloads.
    @discardableResult
    public func start(_ media: SharedMedia, session: String, codec: CallAudioCodec,
                      onEnd: (@Sendable (MediaPlayback.Outcome) -> Void)? = nil) throws(MediaError) -> MediaPlayback {
        let key = LoopKey(media: media, codec: codec)
        let loop: EncodedLoop
        if let cached = loops.withLock({ $0[key] }) {
            loop = cached
        } else {
            let made = try EncodedLoop(media, codec: codec, configuration: configuration)
            loop = loops.withLock { cache in
                if let raced = cache[key] { return raced }
                cache[key] = made
                return made
            }
        }
        return install(PlaybackChannel(loop: loop, session: session, codec: codec, onEnd: onEnd))
    }

    /// Encodes shared media ahead of the first call that plays it (at server start, off the
    /// request path): hold music takes ~0.2 s of CPU per codec to encode.
    public func prepare(_ media: [SharedMedia], codecs: [CallAudioCodec] = [.opus]) throws(MediaError) {
        for item in media {
            for codec in codecs where loops.withLock({ $0[LoopKey(media: item, codec: codec)] }) == nil {
                let made = try EncodedLoop(item, codec: codec, configuration: configuration)
                loops.withLock { $0[LoopKey(media: item, codec: codec)] = $0[LoopKey(media: item, codec: codec)] ?? made }
            }
        }
    }

    private func install(_ channel: PlaybackChannel) -> MediaPlayback {
        let session = channel.session
        let previous = state.withLock { s -> PlaybackChannel? in
            let old = s.bySession.updateValue(channel, forKey: session)
            if let old { s.list.removeAll { $0 === old } }
            s.list.append(channel)
            return old
        }
        if let previous, previous.deactivate() { previous.playback.resolve(.replaced) }
        return channel.playback
    }

    /// Stops what `session` plays (its playback ends `.stopped`). False when nothing played.
    @discardableResult
    public func stop(session: String) -> Bool {
        let channel = state.withLock { s -> PlaybackChannel? in
            guard let channel = s.bySession.removeValue(forKey: session) else { return nil }
            s.list.removeAll { $0 === channel }
            return channel
        }
        guard let channel, channel.deactivate() else { return false }
        channel.playback.resolve(.stopped)
        return true
    }

    /// Stops every playback (server shutdown).
    public func stopAll() {
        let channels = state.withLock { s -> [PlaybackChannel] in
            defer {
                s.bySession.removeAll()
                s.list.removeAll()
            }
            return s.list
        }
        for channel in channels where channel.deactivate() { channel.playback.resolve(.stopped) }
    }

    /// The playback active on `session`, if any.
    public func playback(session: String) -> MediaPlayback? {
        state.withLock { $0.bySession[session]?.playback }
    }

    public var statistics: Statistics {
        var s = stats.withLock { $0 }
        s.activePlaybacks = state.withLock { $0.list.count }
        return s
    }

    /// Ticks `target` on every tick of the player, before its playbacks: a conference mixer runs on
    /// the same 20 ms clock as the media the player sends.
    public func attach(_ target: any MediaClockTarget) {
        companions.withLock { $0.append(target) }
    }

    public func detach(_ target: any MediaClockTarget) {
        companions.withLock { list in list.removeAll { $0 === target } }
    }

    /// One 20 ms step for every session. Sink calls happen outside the player's locks.
    public func tick() {
        let attached = companions.withLock { $0 }
        var index = 0
        while index < attached.count {
            attached[index].tick()
            index += 1
        }
        let started = MediaClock.threadCPUNanoseconds()
        let channels = state.withLock { $0.list }
        var frames = 0
        for channel in channels {
            switch channel.produce() {
            case .frame(let payload, let samples):
                sink.play(payload, samples: samples, to: channel.session)
                channel.playback.countFrame()
                frames += 1
            case .ended(let outcome):
                if case .failed(let reason) = outcome {
                    Log.warning(.platform, "media playback to \(channel.session) failed: \(reason)")
                }
                state.withLock { s in
                    if s.bySession[channel.session] === channel { s.bySession[channel.session] = nil }
                    s.list.removeAll { $0 === channel }
                }
                channel.playback.resolve(outcome)
            case .inactive:
                break
            }
        }
        let used = MediaClock.threadCPUNanoseconds() &- started
        stats.withLock { s in
            s.ticks += 1
            s.framesSent += frames
            s.cpuNanoseconds &+= used
            s.maximumTickCPUNanoseconds = max(s.maximumTickCPUNanoseconds, used)
        }
    }
}
