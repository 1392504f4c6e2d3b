import Foundation
import Hummingbird

/// The context of the console's signed-in pages: it cannot be made without a live session,
/// so no page behind it can forget the check.
struct ConsoleRequestContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let visit: ConsoleVisit

    init(context: AppRequestContext) throws {
        guard let visit = context.consoleVisit else { throw HTTPError(.unauthorized) }
        self.coreContext = context.coreContext
        self.visit = visit
    }

    var maxUploadSize: Int { AppRequestContext.maxBodySize }
    var responseEncoder: JSONEncoder { AppRequestContext.encoder }
}
