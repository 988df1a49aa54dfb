import AudioCore
import Foundation
@testable import ServerMedia
import ParleyTestSupport
import Synchronization
import Testing

@Suite struct MediaPlayerTests {
    @Test func opusFramesOfATonePlayAtTwentyMillisecondsAndEnd() async throws {
        let sink = CollectingSink()
        let player = CallMediaPlayer(sink: sink)
        let playback = try player.start(ToneSource(frequencies: [440], seconds: 1), session: "s1", codec: .opus)
        for _ in 0..<60 { player.tick() }
        let frames = sink.frames(for: "s1")
        #expect(frames.count == 50)
        #expect(frames.allSatisfy { $0.samples == 960 && !$0.payload.isEmpty && $0.payload.count < 200 })
        #expect(await playback.ended() == .finished)
        #expect(playback.framesPlayed == 50)
        #expect(player.playback(session: "s1") == nil)
        let frequency = try ToneAudio.dominantFrequency(ofOpus: frames.map(\.payload))
        #expect(abs(frequency - 440) <= 4)
        let stats = player.statistics
        #expect(stats.framesSent == 50 && stats.ticks == 60 && stats.activePlaybacks == 0)
        #expect(stats.cpuNanoseconds > 0)
    }

    @Test func pcmuFramesCarry160SamplesOfRingback() throws {
        let sink = CollectingSink()
        let player = CallMediaPlayer(sink: sink)
        try player.start(RingbackSource(), session: "s2", codec: .pcmu)
        for _ in 0..<50 { player.tick() }
        let frames = sink.frames(for: "s2")
        #expect(frames.count == 50)
        #expect(frames.allSatisfy { $0.samples == 160 && $0.payload.count == 160 })
        let pcm = frames.dropFirst(2).flatMap { $0.payload.map(G711.muLawDecode) }
        #expect(MediaSignal.amplitude(pcm, frequency: 440, rate: 8_000) > 2_000)
        #expect(MediaSignal.amplitude(pcm, frequency: 480, rate: 8_000) > 2_000)
        #expect(MediaSignal.amplitude(pcm, frequency: 1_000, rate: 8_000) < 100)
    }

    @Test func sharedRingbackIsEncodedOnceAndLoopsItsCadence() throws {
        let sink = CollectingSink()
        let player = CallMediaPlayer(sink: sink)
        try player.prepare([.ringback(.us)], codecs: [.pcmu])
        for i in 0..<3 { try player.start(.ringback(.us), session: "r\(i)", codec: i == 2 ? .opus : .pcmu) }
        for _ in 0..<310 { player.tick() }
        let a = sink.frames(for: "r0"), b = sink.frames(for: "r1"), opus = sink.frames(for: "r2")
        #expect(a.count == 310 && opus.count == 310)
        #expect(a.map(\.payload) == b.map(\.payload))
        #expect(a.allSatisfy { $0.samples == 160 } && opus.allSatisfy { $0.samples == 960 })
        let levels = a.map { frame in MediaSignal.rms(frame.payload.map(G711.muLawDecode)) }
        #expect(levels[2..<98].allSatisfy { $0 > 2_000 })
        #expect(levels[102..<300].allSatisfy { $0 < 10 })
        #expect(a[300].payload == a[0].payload && a[309].payload == a[9].payload)
        #expect(opus[300].payload == opus[0].payload)
        let frequency = try ToneAudio.dominantFrequency(ofOpus: opus.prefix(60).map(\.payload))
        #expect(frequency == 440 || frequency == 480)
    }

    @Test func sharedHoldMusicAndSilencePlayUntilStopped() async throws {
        let sink = CollectingSink()
        let player = CallMediaPlayer(sink: sink)
        let music = try player.start(.holdMusic, session: "held", codec: .opus)
        let quiet = try player.start(.silence, session: "muted", codec: .pcma)
        for _ in 0..<450 { player.tick() }
        #expect(sink.frames(for: "held").count == 450)
        #expect(Set(sink.frames(for: "muted").map(\.payload)).count == 1)
        player.stopAll()
        let musicEnd = await music.ended(), quietEnd = await quiet.ended()
        #expect(musicEnd == .stopped && quietEnd == .stopped)
    }

    @Test func stopAndReplaceEndPlaybacks() async throws {
        let sink = CollectingSink()
        let player = CallMediaPlayer(sink: sink)
        let ended = Mutex<[MediaPlayback.Outcome]>([])
        let first = try player.start(SilenceSource(), session: "a", codec: .opus) { outcome in ended.withLock { $0.append(outcome) } }
        player.tick()
        let second = try player.start(HoldMusic.source(), session: "a", codec: .opus)
        #expect(await first.ended() == .replaced)
        player.tick()
        #expect(player.stop(session: "a"))
        #expect(!player.stop(session: "a"))
        #expect(await second.ended() == .stopped)
        player.tick()
        #expect(sink.frames(for: "a").count == 2)
        #expect(ended.withLock { $0 } == [.replaced])
    }

    @Test func everySessionGetsOneFramePerTick() throws {
        let sink = CollectingSink()
        let player = CallMediaPlayer(sink: sink)
        for i in 0..<20 { try player.start(RingbackSource(), session: "call\(i)", codec: i % 2 == 0 ? .opus : .pcma) }
        for _ in 0..<10 { player.tick() }
        #expect(player.statistics.activePlaybacks == 20)
        for i in 0..<20 {
            let frames = sink.frames(for: "call\(i)")
            #expect(frames.count == 10)
            #expect(frames.allSatisfy { $0.samples == (i % 2 == 0 ? 960 : 160) })
        }
        player.stopAll()
        #expect(player.statistics.activePlaybacks == 0)
    }

    @Test func sequenceOfSayLikeAudioThenDigitsFinishesOnTheLastFrame() async throws {
        let sink = CollectingSink()
        let player = CallMediaPlayer(sink: sink)
        let prompt = PCMAudio(samples: MediaSignal.sine(300, rate: 48_000, seconds: 0.5))
        let playback = try player.start(SequenceSource([PCMSource(prompt), try DigitsSource("5")]), session: "q", codec: .opus)
        for _ in 0..<40 { player.tick() }
        // 0.5 s + 170 ms = 33.5 frames: 34 frames, the last one partly silence.
        #expect(sink.frames(for: "q").count == 34)
        #expect(await playback.ended() == .finished)
    }

    @Test func realClockTicksFiftyTimesASecond() async throws {
        let clock = MediaClock(name: "test-media-clock")
        let counter = TickCounter(target: 16)
        clock.add(counter)
        clock.start()
        await counter.reached()
        clock.stop()
        let after = counter.count
        // Fifteen intervals between the first and the sixteenth tick, timed on the clock's thread.
        let times = counter.times
        let span = Double(times[15] - times[0]) / 1e6
        #expect(span > 270 && span < 400, "15 ticks took \(span) ms")
        #expect(clock.statistics.ticks >= 16)
        #expect(counter.count == after)  // nothing ticks after stop() returned
        clock.remove(counter)
    }
}

/// Counts ticks and resumes a waiter at the `target`th.
final class TickCounter: MediaClockTarget {
    private struct State {
        var times: [UInt64] = []
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    let target: Int

    init(target: Int) { self.target = target }

    var count: Int { state.withLock { $0.times.count } }
    /// Monotonic nanoseconds of each tick.
    var times: [UInt64] { state.withLock { $0.times } }

    func tick() {
        let now = MediaClock.monotonicNanoseconds()
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.times.append(now)
            guard s.times.count >= target else { return nil }
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    func reached() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { s -> Bool in
                if s.times.count >= target { return true }
                s.waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
}
