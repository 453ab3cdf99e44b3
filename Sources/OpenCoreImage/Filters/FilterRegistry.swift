import Foundation

/// Every filter Core Image has here, by name.
enum FilterRegistry {
    static let definitions: [String: FilterDefinition] = {
        var all: [String: FilterDefinition] = [:]
        for definition in ColourFilters.all + EffectFilters.all + BlurFilters.all + GeometryFilters.all + CompositingFilters.all
            + GeneratorFilters.all
        {
            all[definition.name] = definition
        }
        return all
    }()
}
