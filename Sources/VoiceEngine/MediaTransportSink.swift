import ServerMedia
import WebRTC

/// The media server as the player's frame sink: frames go out on the session's own stream.
package struct MediaTransportSink: MediaFrameSink {
    let media: MediaTransportServer

    package init(media: MediaTransportServer) {
        self.media = media
    }

    package func play(_ payload: [UInt8], samples: Int, to session: String) {
        media.play(EncodedAudioFrame(payload: payload, samples: samples), to: session)
    }
}

extension CallAudioCodec {
    /// The codec a media session negotiated, as the player and recorder know it.
    init(_ codec: AudioCodec) {
        switch codec {
        case .opus: self = .opus
        case .pcmu: self = .pcmu
        case .pcma: self = .pcma
        }
    }
}
