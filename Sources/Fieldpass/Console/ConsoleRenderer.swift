import Foundation
import Hummingbird
import Mustache

/// The console's pages, from the Mustache templates compiled into the binary. Every `{{value}}`
/// is HTML-escaped by the engine; no template uses the unescaped forms.
struct ConsoleRenderer: Sendable {
    /// The public URL's path, in front of every link.
    let base: String

    /// The templates, parsed once for the process: every application built (each router test
    /// builds one) shares them.
    private static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, bytes) in templates {
            // The templates are compiled into the binary: one that does not parse is a bug,
            // which every console test would meet first.
            do {
                try library.register(String(decoding: bytes, as: UTF8.self), named: name)
            } catch {
                preconditionFailure("console template \(name) does not parse: \(error)")
            }
        }
        return library
    }()

    /// The page `template` filled from `view`, with the security headers of every page.
    func page(_ template: String, _ view: Any, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        let html = Self.library.render(view, withTemplate: template) ?? ""
        return HTMLPage.response(html: html, status: status, styles: Self.styles, headers: headers)
    }

    /// Where console pages take styles from: the one stylesheet, no inline style.
    static let styles = "'self'"

    /// A page that only says something, such as a refusal, with a way back.
    func message(
        status: HTTPResponse.Status, title: String, text: String, back: String? = nil, chrome: ConsoleChrome? = nil
    ) -> Response {
        page(
            "message", MessageView(chrome: chrome ?? .signedOut(title: title, base: base), text: ConsoleText(text), back: back),
            status: status)
    }

    /// The one stylesheet, served by Fieldpass itself.
    static let stylesheet = ByteBuffer(bytes: PackageResources.console_css)

    private static let templates: [(String, [UInt8])] = [
        ("layout", PackageResources.layout_mustache),
        ("csrf", PackageResources.csrf_mustache),
        ("qr", PackageResources.qr_mustache),
        ("text", PackageResources.text_mustache),
        ("named", PackageResources.named_mustache),
        ("changes", PackageResources.changes_mustache),
        ("message", PackageResources.message_mustache),
        ("sign-in", PackageResources.sign_in_mustache),
        ("people", PackageResources.people_mustache),
        ("person", PackageResources.person_mustache),
        ("teams", PackageResources.teams_mustache),
        ("team", PackageResources.team_mustache),
        ("shared-devices", PackageResources.shared_devices_mustache),
        ("shared-device", PackageResources.shared_device_mustache),
        ("shared-device-code", PackageResources.shared_device_code_mustache),
        ("badge-card", PackageResources.badge_card_mustache),
        ("onboarding", PackageResources.onboarding_mustache),
        ("audit", PackageResources.audit_mustache),
        ("keys", PackageResources.keys_mustache),
    ]

    private struct MessageView {
        let chrome: ConsoleChrome
        let text: ConsoleText
        let back: String?
    }
}
