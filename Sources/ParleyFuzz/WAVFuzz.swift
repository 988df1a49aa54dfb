import AudioCore

/// Feeds bytes to the WAV parser. Whatever parses holds whole frames and must re-serialize (as
/// canonical 16-bit PCM) to bytes that parse to the same rate, channels and samples.
enum WAVFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        guard let file = try? WAVFile(parsing: data) else { return }
        precondition(file.channels > 0 && file.channels <= WAVFile.maximumChannels, "WAV channel count out of range")
        precondition(file.sampleRate > 0, "WAV sample rate not positive")
        precondition(file.samples.count % file.channels == 0, "WAV parser returned a partial frame")
        precondition(file.samples.count <= data.count, "WAV parser invented samples")

        let bytes = file.serialized
        precondition(bytes.count == file.serializedSize, "WAV serializedSize disagrees with serialize")
        guard let again = try? WAVFile(parsing: bytes) else {
            preconditionFailure("WAV parser refused its own serialization")
        }
        precondition(again.sampleRate == file.sampleRate && again.channels == file.channels
                     && again.samples == file.samples, "WAV round trip changed the audio")
    }
}
