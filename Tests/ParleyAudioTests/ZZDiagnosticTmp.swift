import AudioCore
import Foundation
import NetworkConditioner
import ParleyAudio
import ParleyCore
import Testing

// TEMPORARY diagnostic (jb engineer), deleted before the report.
@Suite struct ZZDiagnosticTmp {
    struct P { var pt: UInt8; var seq: UInt16; var ts: UInt32; var m: Bool; var payload: [UInt8] }
    @Test func dump() throws {
        guard let path = ProcessInfo.processInfo.environment["JBDIAG_INPUT"] else { return }
        let loss = Double(ProcessInfo.processInfo.environment["JBDIAG_LOSS"] ?? "0") ?? 0
        let jitter = Int64(ProcessInfo.processInfo.environment["JBDIAG_JITTER"] ?? "0") ?? 0
        let wav = try WAVFile(parsing: [UInt8](FileManager.default.contents(atPath: path)!))
        // crude resample 22050 -> 48000 by linear interpolation (diagnostic only)
        let n = wav.samples.count * 48_000 / wav.sampleRate
        let input: [Int16] = (0..<n).map { i in
            let x = Double(i) * Double(wav.sampleRate) / 48_000; let k = Int(x); let f = x - Double(k)
            let a = Double(wav.samples[min(k, wav.samples.count - 1)]), b = Double(wav.samples[min(k + 1, wav.samples.count - 1)])
            return Int16(a + (b - a) * f)
        }
        let format = AudioFormat(sampleRate: 48_000, channels: 1)
        let send = try AudioSendStream(configuration: AudioSendStreamConfiguration(codec: .opus, redPayloadType: 63, redDistance: 2,
            frameMilliseconds: 20, bitrate: 40_000, fec: .adaptive), inputFormat: format)
        let receive = try AudioReceiveStream(decoder: try OpusAudioDecoder(sampleRate: 48_000, channels: 1),
            configuration: AudioReceiveStreamConfiguration(payloadType: send.configuration.codecPayloadType, redPayloadType: 63, outputFormat: format))
        var log = ""
        var now: Int64 = 0
        receive.onPlayout = { d in
            let s = receive.statistics.jitterBuffer
            log += "D \(now) \(d.action) ts=\(d.timestamp / 960) n=\(d.samples) \(d.timeStretch) jbd=\(d.jitterBufferDelay.map { $0 / 1000 } ?? -1) tgt=\(s.targetDelayMs) cur=\(s.currentDelayMs)\n"
        }
        var conditions = NetworkConditions()
        conditions.loss = NetworkConditions.loss(percent: loss)
        conditions.jitterMicroseconds = jitter * 1000
        var network = NetworkConditioner<P>(conditions: conditions, seed: 1, capacity: 1024)
        var seq: UInt16 = 0
        let frames = 480
        let ticks = (input.count + frames - 1) / frames + 60
        var output = [Int16](repeating: 0, count: ticks * frames)
        var capture = [Int16](repeating: 0, count: frames)
        var lastReport: (lost: Int, received: Int, time: Int64) = (0, 0, 0)
        for k in 0..<ticks {
            now = Int64(k) * 10_000
            for i in 0..<frames { let j = k * frames + i; capture[i] = j < input.count ? input[j] : 0 }
            try capture.withUnsafeBufferPointer { (pcm) throws(ParleyError) in
                try send.process(pcm) { packet in
                    let p = P(pt: packet.payloadType, seq: seq, ts: packet.timestamp, m: packet.marker, payload: Array(packet.payload))
                    seq &+= 1
                    if network.submit(p, length: p.payload.count + 12, at: now) == 0 { log += "LOST seq=\(p.seq) ts=\(p.ts / 960)\n" }
                }
            }
            let pull = now + 3_000
            while let d = network.dequeueDue(at: pull) {
                let p = d.payload
                p.payload.withUnsafeBytes { b in
                    let r = receive.receive(payloadType: p.pt, sequenceNumber: p.seq, timestamp: p.ts, ssrc: 1, marker: p.m, payload: b, at: d.time)
                    log += "A \(d.time) seq=\(p.seq) ts=\(p.ts / 960) \(String(describing: r))\n"
                }
            }
            now = pull
            output.withUnsafeMutableBufferPointer { out in
                receive.read(into: UnsafeMutableBufferPointer(rebasing: out[(k * frames)..<((k + 1) * frames)]), at: pull)
            }
            if now - lastReport.time >= 1_000_000 {
                let s = receive.statistics
                let lost = s.packetsLost - lastReport.lost, received = s.packetsReceived - lastReport.received
                let fraction = lost + received > 0 && lost > 0 ? UInt8(min(255, lost * 256 / (lost + received))) : 0
                send.reportRemoteLoss(fractionLost: fraction)
                lastReport = (s.packetsLost, s.packetsReceived, now)
            }
        }
        log += "STATS \(receive.statistics.jitterBuffer)\n"
        let out = ProcessInfo.processInfo.environment["JBDIAG_OUT"] ?? "/tmp/jbdiag/log.txt"
        try log.write(toFile: out, atomically: true, encoding: .utf8)
        let bytes = WAVFile(sampleRate: 48_000, channels: 1, samples: output).serialized
        FileManager.default.createFile(atPath: out + ".wav", contents: Data(bytes))
    }
}
