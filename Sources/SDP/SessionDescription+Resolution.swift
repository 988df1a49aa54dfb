/// Values a media section inherits from the session level when it does not set them itself.
/// Each resolver looks at the media section first, then the session.
extension SessionDescription {
    /// The ICE username fragment for `media` (RFC 8839 §5.4: media level overrides session level).
    public func iceUfrag(for media: MediaDescription) -> String? { media.iceUfrag ?? iceUfrag }

    /// The ICE password for `media` (RFC 8839 §5.4).
    public func icePwd(for media: MediaDescription) -> String? { media.icePwd ?? icePwd }

    /// The ICE options for `media` (RFC 8839 §5.6).
    public func iceOptions(for media: MediaDescription) -> [String] {
        let local = media.iceOptions
        return local.isEmpty ? iceOptions : local
    }

    /// The DTLS fingerprints for `media` (RFC 8122 §5: a media-level fingerprint replaces the
    /// session-level ones).
    public func fingerprints(for media: MediaDescription) -> [SDPFingerprint] {
        let local = media.fingerprints
        return local.isEmpty ? fingerprints : local
    }

    /// The DTLS setup role for `media` (RFC 4145 §4, RFC 8842 §3).
    public func setup(for media: MediaDescription) -> SDPSetupRole? { media.setup ?? setup }

    /// The media direction for `media`: its own attribute, else the session's, else `sendrecv`
    /// (RFC 8866 §6.7).
    public func direction(for media: MediaDescription) -> SDPDirection {
        media.direction ?? direction ?? .sendrecv
    }

    /// The connection data for `media`: its first `c=`, else the session's (RFC 8866 §5.7).
    public func connection(for media: MediaDescription) -> SDPConnection? {
        media.connections.first ?? connection
    }

    /// Whether `media` may mix one- and two-byte header extensions (RFC 8285 §6).
    public func extmapAllowMixed(for media: MediaDescription) -> Bool {
        media.extmapAllowMixed || extmapAllowMixed
    }

    /// The header extensions for `media`: its own, plus session-level ones whose id it does not
    /// redefine (RFC 8285 §8 allows `extmap` at either level).
    public func extmaps(for media: MediaDescription) -> [SDPExtmap] {
        let local = media.extmaps
        let ids = Set(local.map(\.id))
        return local + extmaps.filter { !ids.contains($0.id) }
    }

    /// The first media section whose `a=mid` is `mid`.
    public func media(withMid mid: String) -> MediaDescription? {
        media.first { $0.mid == mid }
    }

    /// The BUNDLE group containing `mid`, if any (RFC 8843 §7).
    public func bundleGroup(containing mid: String) -> [String]? {
        bundleGroups.first { $0.contains(mid) }
    }

    /// The mid whose section carries the transport of `mid`'s BUNDLE group: the first mid of the
    /// group, the offerer- or answerer-tagged section (RFC 8843 §7.2.1, §7.3.1); `mid` itself when
    /// it is not bundled.
    public func bundleTransportMid(for mid: String) -> String {
        bundleGroup(containing: mid)?.first ?? mid
    }
}
