/// One composition as `ffmpeg` renders it: video tiles drawn in order on a black canvas, each a
/// recording scaled to fit its cell (aspect kept, centred) from its start time on, and audio
/// recordings delayed to their start times and mixed (`amix`, no level normalisation); the
/// whole cut to `duration`. Pure: it only builds the program's arguments.
package struct MediaComposition: Sendable, Equatable {
    package enum Format: String, Sendable {
        /// VP8 and Opus in WebM.
        case webm
        /// H.264 (libx264) and AAC in MP4, `faststart`.
        case mp4
    }

    package struct VideoTile: Sendable, Equatable {
        package var path: String
        /// Seconds after the composition's start at which the recording's first frame shows.
        package var start: Double
        package var x: Int, y: Int, width: Int, height: Int

        package init(path: String, start: Double, x: Int, y: Int, width: Int, height: Int) {
            self.path = path
            self.start = start
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    package struct AudioInput: Sendable, Equatable {
        package var path: String
        package var start: Double

        package init(path: String, start: Double) {
            self.path = path
            self.start = start
        }
    }

    package var width: Int
    package var height: Int
    package var duration: Double
    package var format: Format
    package var video: [VideoTile]
    package var audio: [AudioInput]
    package var frameRate = 25
    /// Encoder threads (the machine's media loops come first).
    package var threads = 1

    package init(width: Int, height: Int, duration: Double, format: Format, video: [VideoTile], audio: [AudioInput]) {
        self.width = width
        self.height = height
        self.duration = duration
        self.format = format
        self.video = video
        self.audio = audio
    }

    /// Whether there is a picture (else the file is audio only).
    package var hasVideo: Bool { !video.isEmpty }

    /// Inputs, the filter graph and the encoders, up to (not including) the output path.
    package func arguments() -> [String] {
        let seconds = Self.number(max(duration, 0.1))
        var arguments: [String] = []
        for input in video.map(\.path) + audio.map(\.path) { arguments += ["-i", input] }
        var graph: [String] = []
        var maps: [String] = []
        if hasVideo {
            graph.append("color=c=black:s=\(width)x\(height):r=\(frameRate):d=\(seconds)[canvas0]")
            for (i, tile) in video.enumerated() {
                let (w, h) = (Self.even(tile.width), Self.even(tile.height))
                graph.append("[\(i):v]setpts=PTS-STARTPTS+\(Self.number(tile.start))/TB,"
                             + "scale=\(w):\(h):force_original_aspect_ratio=decrease:force_divisible_by=2,"
                             + "pad=\(w):\(h):(ow-iw)/2:(oh-ih)/2:color=black,setsar=1[tile\(i)]")
                graph.append("[canvas\(i)][tile\(i)]overlay=x=\(tile.x):y=\(tile.y):eof_action=pass[canvas\(i + 1)]")
            }
            graph.append("[canvas\(video.count)]format=yuv420p[vout]")
            maps += ["-map", "[vout]"]
        }
        if !audio.isEmpty {
            var labels = ""
            for (j, input) in audio.enumerated() {
                let delay = Int((max(0, input.start) * 1000).rounded())
                graph.append("[\(video.count + j):a]aresample=48000,adelay=\(delay):all=1[a\(j)]")
                labels += "[a\(j)]"
            }
            let mix = audio.count > 1 ? "amix=inputs=\(audio.count):duration=longest:normalize=0," : ""
            graph.append("\(labels)\(mix)apad=whole_dur=\(seconds),atrim=0:\(seconds)[aout]")
            maps += ["-map", "[aout]"]
        }
        arguments += ["-filter_complex", graph.joined(separator: ";")] + maps
        arguments += ["-threads", String(max(1, threads)), "-t", seconds]
        switch format {
        case .webm:
            if hasVideo {
                let bitrate = max(200_000, width * height * 2)
                arguments += ["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", String(bitrate)]
            }
            if !audio.isEmpty { arguments += ["-c:a", "libopus", "-b:a", "64000"] }
            arguments += ["-f", "webm"]
        case .mp4:
            if hasVideo { arguments += ["-c:v", "libx264", "-preset", "veryfast", "-crf", "26", "-pix_fmt", "yuv420p"] }
            if !audio.isEmpty { arguments += ["-c:a", "aac", "-b:a", "96000"] }
            arguments += ["-movflags", "+faststart", "-f", "mp4"]
        }
        return arguments
    }

    private static func even(_ n: Int) -> Int { max(2, n - n % 2) }

    /// Seconds with millisecond precision, no exponent.
    private static func number(_ seconds: Double) -> String {
        let ms = Int((seconds * 1000).rounded())
        let fraction = String(ms % 1000)
        return "\(ms / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
