import Foundation

/// Which redirect URIs an app may register (RFC 8252 section 7): a private-use scheme in
/// reverse-domain form (`com.example.fieldapp:/signed-in`), an https URL the app claims, or a
/// loopback `http` URL of a desktop app or the CLI (section 7.3: an IP literal, never
/// `localhost`). Never a fragment, which the query Fieldpass appends would land in, nor
/// credentials in the URL.
enum AppRedirectURI {
    /// Longer than any real redirect URI; it is stored with each session that names it.
    static let maxLength = 512

    /// Why `uri` cannot be registered, or `nil` when it can.
    static func problem(_ uri: String) -> String? {
        guard (1...maxLength).contains(uri.utf8.count) else { return "must be 1 to \(maxLength) characters" }
        guard let url = URLComponents(string: uri), let scheme = url.scheme else { return "is not an absolute URI" }
        guard url.fragment == nil, !uri.contains("#") else { return "must not have a fragment" }
        guard url.user == nil, url.password == nil else { return "must not carry credentials" }
        switch scheme {
        case "https":
            return url.host?.isEmpty == false ? nil : "must name a host"
        case "http":
            return ["127.0.0.1", "[::1]", "::1"].contains(url.host ?? "") && url.port != nil
                ? nil : "may use http only for a loopback IP literal with a port (127.0.0.1 or [::1]); use https or a private-use scheme"
        default:
            let isReverseDomain =
                scheme.contains(".") && scheme == scheme.lowercased()
                && scheme.unicodeScalars.allSatisfy {
                    ("a"..."z").contains($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)
                }
            return isReverseDomain
                ? nil : "must use https or a private-use scheme in reverse-domain form, such as com.example.app:/signed-in"
        }
    }
}
