import Foundation
import NetworkConditioner
import ParleyAudio
import ParleyTestSupport
import SpeechScoring

/// `parley-bench audio-quality`: speech → encoder (FEC, RED) → simulated network → jitter buffer →
/// decoder, scored with PESQ-WB against the original (scripts/pesq-score in the venv).
///
///   parley-bench audio-quality                       the table of docs/quality.md (espeak-ng speech)
///   parley-bench audio-quality --input ref.wav --output out.wav --loss 10 [--burst [MEAN]]
///       [--jitter-ms 30] [--reorder P] [--seed N] [--codec opus|pcmu|pcma] [--red 0|1|2] [--no-fec]
enum AudioQualityBench {
    struct Condition {
        var name: String
        var options = AudioPathSimulation.Options()
    }

    static func run(_ arguments: ArraySlice<String>) throws {
        var flags = Set<String>(), values: [String: String] = [:]
        var rest = arguments
        while let arg = rest.popFirst() {
            if ["--burst", "--no-fec"].contains(arg) {
                flags.insert(arg)
                if arg == "--burst", let next = rest.first, Double(next) != nil { values[arg] = rest.popFirst() }
            } else if let value = rest.popFirst() {
                values[arg] = value
            }
        }
        // Found before the simulation runs, so a missing scorer costs nothing and says how to fix it.
        let scorer = try PESQScorer.locate()
        let inputPath: String
        if let given = values["--input"] {
            inputPath = given
        } else {
            inputPath = FileManager.default.temporaryDirectory.appendingPathComponent("parley-speech-\(getpid()).wav").path
            try SpeechMaterial.speak(to: inputPath)
        }
        let input = try SpeechMaterial.load(inputPath, rate: AudioPathSimulation.rate)
        if values["--input"] == nil { try? FileManager.default.removeItem(atPath: inputPath) }
        let reference = try SpeechMaterial.resample(input, from: AudioPathSimulation.rate, to: 16_000)
        print(String(format: "audio-quality: %@ (%.1f s), PESQ-WB (ITU-T P.862.2) against the original",
                     values["--input"] ?? "espeak-ng Harvard sentences, male and female voice", Double(input.count) / Double(AudioPathSimulation.rate)))

        let single = values.keys.contains { ["--loss", "--jitter-ms", "--reorder", "--output", "--codec"].contains($0) }
            || flags.contains("--burst")
        let conditions = single ? [condition(values: values, flags: flags)] : table()
        printHeader()
        var results: [(Condition, AudioPathSimulation.Result)] = []
        for c in conditions {
            results.append((c, try AudioPathSimulation.run(input: input, options: c.options)))
        }
        let degraded = try results.map { try SpeechMaterial.resample($0.1.output, from: AudioPathSimulation.rate, to: 16_000) }
        let scores = try SpeechMaterial.pesq(degraded.map { (reference, $0) }, scorer: scorer)
        for ((c, r), score) in zip(results, scores) { printRow(c, r, score) }
        if let output = values["--output"], let played = results.first?.1.output {
            try SpeechMaterial.save(played, rate: AudioPathSimulation.rate, to: output)
            print("wrote what the receiver played to \(output) (48 kHz mono)")
        }
    }

    static func condition(values: [String: String], flags: Set<String>) -> Condition {
        var o = AudioPathSimulation.Options()
        let loss = values["--loss"].flatMap(Double.init) ?? 0
        let burst = flags.contains("--burst") ? (values["--burst"].flatMap(Double.init) ?? 3) : nil
        o.conditions.loss = NetworkConditions.loss(percent: loss, meanBurstLength: burst)
        o.conditions.jitterMicroseconds = Int64((values["--jitter-ms"].flatMap(Double.init) ?? 0) * 1000)
        o.conditions.reorderPercent = values["--reorder"].flatMap(Double.init) ?? 0
        o.conditions.allowsReordering = o.conditions.reorderPercent > 0
        o.seed = values["--seed"].flatMap(UInt64.init) ?? 1
        o.codec = AudioCodecKind(rawValue: values["--codec"] ?? "opus") ?? .opus
        o.redDistance = o.codec == .opus ? (values["--red"].flatMap(Int.init) ?? 2) : 0
        if flags.contains("--no-fec") { o.fec = .off }
        var name = "\(o.codec.rawValue) loss \(loss)%\(burst.map { " burst \($0)" } ?? "")"
        name += " jitter \(o.conditions.jitterMicroseconds / 1000) ms"
        if o.conditions.reorderPercent > 0 { name += " reorder \(o.conditions.reorderPercent)%" }
        return Condition(name: name, options: o)
    }

    /// The rows of docs/quality.md.
    static func table() -> [Condition] {
        func make(_ name: String, loss: Double = 0, burst: Double? = nil, jitterMs: Int64 = 0, reorder: Double = 0,
                  codec: AudioCodecKind = .opus, red: Int = 2, fec: OpusFECController.Policy = .adaptive) -> Condition {
            var o = AudioPathSimulation.Options()
            o.codec = codec
            o.redDistance = codec == .opus ? red : 0
            o.fec = codec == .opus ? fec : .off
            o.conditions.loss = NetworkConditions.loss(percent: loss, meanBurstLength: burst)
            o.conditions.jitterMicroseconds = jitterMs * 1000
            o.conditions.reorderPercent = reorder
            o.conditions.allowsReordering = jitterMs > 0 || reorder > 0
            return Condition(name: name, options: o)
        }
        var rows: [Condition] = []
        for loss in [0.0, 2, 5, 10, 20] {
            rows.append(make("opus+RED2+FEC, random loss \(Int(loss)) %", loss: loss))
        }
        for loss in [2.0, 5, 10, 20] {
            rows.append(make("opus+RED2+FEC, bursty loss \(Int(loss)) % (mean burst 3)", loss: loss, burst: 3))
        }
        for jitter: Int64 in [10, 30, 60] {
            rows.append(make("opus+RED2+FEC, jitter 0–\(jitter) ms, reordering", jitterMs: jitter))
        }
        rows.append(make("opus+RED2+FEC, 5 % loss, jitter 0–30 ms, 2 % reordered", loss: 5, jitterMs: 30, reorder: 2))
        rows.append(make("opus+RED2+FEC, 10 % loss, jitter 0–30 ms", loss: 10, jitterMs: 30))
        rows.append(make("opus plain PLC (no RED, no FEC), random loss 10 %", loss: 10, red: 0, fec: .off))
        rows.append(make("opus FEC only (no RED), random loss 10 %", loss: 10, red: 0))
        rows.append(make("opus+RED1+FEC, random loss 10 %", loss: 10, red: 1))
        rows.append(make("pcmu, no loss", codec: .pcmu))
        rows.append(make("pcmu, random loss 5 %", loss: 5, codec: .pcmu))
        return rows
    }

    static func printHeader() {
        print("| condition | lost on the wire | PESQ-WB | JB delay p50 | JB delay p95 | concealed | recovered (RED / FEC) | time-stretched (acc / exp) | kbit/s |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    }

    static func printRow(_ c: Condition, _ r: AudioPathSimulation.Result, _ score: Double) {
        let n = r.network
        let lost = n.submitted > 0 ? 100 * Double(n.droppedByLoss) / Double(n.submitted) : 0
        let jb = r.receive.jitterBuffer
        let concealedPercent = 100 * Double(jb.concealedSamples) / Double(max(r.output.count, 1))
        let seconds = Double(r.packetsSent * c.options.frameMilliseconds) / 1000
        let kbps = Double(r.payloadBytesSent * 8) / seconds / 1000
        print(String(format: "| %@ | %.1f %% | %.2f | %.0f ms | %.0f ms | %.2f %% | %d / %d | %d / %d | %.0f |",
                     c.name, lost, score, r.jitterBufferDelay(quantile: 0.5), r.jitterBufferDelay(quantile: 0.95),
                     concealedPercent, jb.redRecoveredFrames, jb.fecRecoveredFrames, jb.accelerateCount, jb.expandCount, kbps))
    }
}
