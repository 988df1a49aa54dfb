@testable import RoomService
import ServerMedia
import Testing

/// `composition-progress`: ffmpeg's `-progress` blocks read from chunks cut anywhere, and the 10 %
/// steps a composition calls back with the time it has left.
@Suite struct CompositionProgressTests {
    static let output = """
        frame=12\nfps=0.00\nout_time_us=N/A\nout_time=N/A\nprogress=continue\n\
        frame=90\nout_time_us=3000000\nout_time_ms=3000000\nspeed=6.1x\nprogress=continue\n\
        frame=210\nout_time_ms=7000000\nprogress=continue\r\n\
        frame=300\nout_time_us=10000000\nprogress=end\n
        """

    @Test func ffmpegsProgressBlocksReadTheSameHoweverThePipeCutsThem() {
        let bytes = Array(Self.output.utf8)
        let expected = [FFmpegProgressReader.Progress(seconds: 0, ended: false), .init(seconds: 3, ended: false),
                        .init(seconds: 7, ended: false), .init(seconds: 10, ended: true)]
        var whole = FFmpegProgressReader()
        let all = whole.feed(bytes)
        #expect(all == expected)
        for cut in [1, 7, 16, 64] {
            var reader = FFmpegProgressReader()
            var got: [FFmpegProgressReader.Progress] = []
            var start = 0
            while start < bytes.count {
                got += reader.feed(bytes[start..<min(start + cut, bytes.count)])
                start += cut
            }
            #expect(got == expected, "chunks of \(cut)")
        }
    }

    @Test func badLinesAreSkippedAndAnOverlongLineIsDropped() {
        var reader = FFmpegProgressReader()
        let junk = "out_time_us=-5\nout_time_us=12x\nout_time_us=99999999999999999999\nprogress=maybe\n=\nnoequals\n"
            + String(repeating: "a", count: 10_000) + "\nprogress=continue\n"
        let skipped = reader.feed(Array(junk.utf8))
        #expect(skipped == [.init(seconds: 0, ended: false)])
        let next = reader.feed(Array("out_time_us=2500000\nprogress=end\n".utf8))
        #expect(next == [.init(seconds: 2.5, ended: true)])
    }

    @Test func aCompositionCallsBackEachTenPercentStepOnceWithTheTimeLeft() {
        var progress = CompositionProgress(duration: 20, startedAt: 100)
        let none = progress.update(mediaSeconds: 1, now: 100.5)
        #expect(none == nil, "5 %: no step yet")
        let first = progress.update(mediaSeconds: 2.5, now: 101)
        #expect(first?.percentage == 12 && first?.secondsRemaining == 8, "12 % in 1 s: 7.3 s left, rounded up")
        let same = progress.update(mediaSeconds: 3, now: 101.2)
        #expect(same == nil, "15 %: still the 10 % step")
        let jump = progress.update(mediaSeconds: 11, now: 102)
        #expect(jump?.percentage == 55 && jump?.secondsRemaining == 2 && progress.reported == 50, "several steps: one callback")
        let end = progress.update(mediaSeconds: 25, now: 103)
        #expect(end?.percentage == 100 && end?.secondsRemaining == 0)
        let again = progress.update(mediaSeconds: 25, now: 103)
        #expect(again == nil)
        var empty = CompositionProgress(duration: 0, startedAt: 0)
        let nothing = empty.update(mediaSeconds: 5, now: 1)
        #expect(nothing == nil)
    }
}
