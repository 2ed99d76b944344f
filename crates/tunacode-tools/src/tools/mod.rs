//! One module per built-in tool.

mod bash;
mod glob;
mod grep;
mod list_dir;
pub(crate) mod process;
mod read_file;
mod run_command;
mod todo;
mod update_file;
mod write_file;

pub use bash::Bash;
pub use glob::Glob;
pub use grep::Grep;
pub use list_dir::ListDir;
pub use read_file::ReadFile;
pub use run_command::RunCommand;
pub use todo::{Todo, TodoList};
pub use update_file::UpdateFile;
pub use write_file::WriteFile;

#[cfg(test)]
mod tests {
    use crate::ToolSet;
    use serde_json::Value;

    #[test]
    fn builtin_set_has_exactly_the_nine_tools() {
        let set = ToolSet::builtin();
        assert_eq!(
            set.names(),
            vec![
                "read_file",
                "write_file",
                "update_file",
                "bash",
                "run_command",
                "grep",
                "glob",
                "list_dir",
                "todo"
            ]
        );
    }

    #[test]
    fn every_spec_is_an_object_schema_whose_required_fields_exist() {
        for spec in ToolSet::builtin().specs() {
            let params = &spec.parameters;
            assert_eq!(params["type"], "object", "{}", spec.name);
            let props = params["properties"].as_object().expect("properties");
            assert!(!props.is_empty(), "{}", spec.name);
            for (name, prop) in props {
                assert!(
                    prop["description"].is_string(),
                    "{}.{name} lacks a description",
                    spec.name
                );
                assert!(
                    prop["type"].is_string(),
                    "{}.{name} lacks a type",
                    spec.name
                );
            }
            let required = params["required"].as_array().expect("required");
            for field in required {
                let field = field.as_str().expect("string");
                assert!(
                    props.contains_key(field),
                    "{}: {field} not in properties",
                    spec.name
                );
            }
            assert!(!spec.description.is_empty());
            assert!(!matches!(params["required"], Value::Null));
        }
    }
}
