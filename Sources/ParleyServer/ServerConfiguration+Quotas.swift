import PlatformCore

/// The quota flags of `parley-server` (docs/voice.md, "Quotas").
extension QuotaLimits {
    /// Usage lines for `ServerConfiguration.usage`.
    static let usage = """
          --max-sessions-per-identity N, --max-connections-per-identity N, --max-calls-per-identity N
                         media sessions (echo and call legs), signaling connections and live calls one
                         identity holds at once (defaults 10, 10, 10); beyond them 31429 (HTTP 429)
          --max-sessions-per-key N, --max-connections-per-key N, --max-calls-per-key N
                         the same for all tokens of one API key (defaults 1000, 50000, 500)
        """

    /// Applies `--max-…-per-identity|key value` if `flag` is one of them; false for other flags.
    mutating func parse(flag: String, value: String) throws(ConfigurationError) -> Bool {
        for resource in QuotaResource.allCases {
            for perKey in [false, true] where resource.flag(perKey: perKey) == flag {
                guard let n = Int(value), (1...Self.maxLimit).contains(n) else {
                    throw ConfigurationError(message: "\(flag) wants 1…\(Self.maxLimit)")
                }
                if perKey { self.perKey[resource] = n } else { perIdentity[resource] = n }
                return true
            }
        }
        return false
    }
}
