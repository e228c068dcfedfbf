//! Masked-LM configuration with Hugging Face `config.json` field names, presets and validation.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::Path;

use super::error::MlmError;

/// Activation function (`hidden_act`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Activation {
    /// Exact GELU, erf form (transformers' "gelu").
    #[serde(rename = "gelu")]
    Gelu,
    /// Tanh approximation of GELU.
    #[serde(rename = "gelu_new")]
    GeluNew,
    /// Tanh approximation of GELU (same formula as `gelu_new`).
    #[serde(rename = "gelu_pytorch_tanh")]
    GeluPytorchTanh,
    #[serde(rename = "relu")]
    Relu,
}

impl Activation {
    pub fn forward(self, x: &candle_core::Tensor) -> candle_core::Result<candle_core::Tensor> {
        match self {
            Activation::Gelu => crate::neural::kernels::gelu_erf(x),
            Activation::GeluNew | Activation::GeluPytorchTanh => x.gelu(),
            Activation::Relu => x.relu(),
        }
    }
}

/// The two tensor layouts anonlm implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    /// `bert.*` + `cls.predictions.*`; positions 0..T.
    Bert,
    /// `roberta.*` + `lm_head.*`; positions counted from `pad_token_id + 1` over non-pad tokens.
    /// Also XLM-RoBERTa and CamemBERT, which share the layout.
    Roberta,
}

impl std::str::FromStr for Arch {
    type Err = crate::error::ValueError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "bert" => Ok(Arch::Bert),
            "roberta" => Ok(Arch::Roberta),
            _ => Err(crate::error::ValueError::new(
                "unknown architecture (expected bert or roberta)",
            )),
        }
    }
}

impl Arch {
    /// Tensor-name prefix of the encoder.
    pub fn prefix(self) -> &'static str {
        match self {
            Arch::Bert => "bert",
            Arch::Roberta => "roberta",
        }
    }
}

fn default_act() -> Activation {
    Activation::Gelu
}
fn default_dropout() -> f64 {
    0.1
}
fn default_max_pos() -> usize {
    512
}
fn default_type_vocab() -> usize {
    2
}
fn default_eps() -> f64 {
    1e-12
}
fn default_init_range() -> f64 {
    0.02
}
fn default_true() -> bool {
    true
}

/// A BERT / RoBERTa masked-LM config. Unknown `config.json` fields are kept in `extra` and
/// written back on save.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MlmConfig {
    pub model_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub architectures: Option<Vec<String>>,
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    #[serde(default = "default_act")]
    pub hidden_act: Activation,
    #[serde(default = "default_dropout")]
    pub hidden_dropout_prob: f64,
    #[serde(default = "default_dropout")]
    pub attention_probs_dropout_prob: f64,
    #[serde(default = "default_max_pos")]
    pub max_position_embeddings: usize,
    #[serde(default = "default_type_vocab")]
    pub type_vocab_size: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    #[serde(default)]
    pub pad_token_id: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bos_token_id: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eos_token_id: Option<u32>,
    #[serde(default = "default_init_range")]
    pub initializer_range: f64,
    #[serde(default = "default_true")]
    pub tie_word_embeddings: bool,
    /// Fields anonlm does not interpret, preserved as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl MlmConfig {
    /// The names [`MlmConfig::preset`] knows.
    pub const PRESETS: [&'static str; 3] = ["tiny", "small", "base"];

    /// A preset by name: `tiny` (hidden 64, 2 layers, 2 heads), `small` (256, 4, 4) or
    /// `base` (768, 12, 12). `vocab_size` and `pad_token_id` come from the tokenizer.
    pub fn preset(
        name: &str,
        arch: Arch,
        vocab_size: usize,
        pad_token_id: u32,
    ) -> Result<Self, MlmError> {
        let (hidden, layers, heads, inter, max_pos) = match name {
            "tiny" => (64, 2, 2, 256, 130),
            "small" => (256, 4, 4, 1024, 514),
            "base" => (768, 12, 12, 3072, 514),
            other => {
                return Err(MlmError::InvalidConfig(format!(
                    "unknown preset {other:?} (expected tiny, small or base)"
                )))
            }
        };
        let c = match arch {
            Arch::Bert => MlmConfig {
                model_type: "bert".into(),
                architectures: Some(vec!["BertForMaskedLM".into()]),
                vocab_size,
                hidden_size: hidden,
                num_hidden_layers: layers,
                num_attention_heads: heads,
                intermediate_size: inter,
                hidden_act: Activation::Gelu,
                hidden_dropout_prob: 0.1,
                attention_probs_dropout_prob: 0.1,
                max_position_embeddings: max_pos,
                type_vocab_size: 2,
                layer_norm_eps: 1e-12,
                pad_token_id,
                bos_token_id: None,
                eos_token_id: None,
                initializer_range: 0.02,
                tie_word_embeddings: true,
                extra: Map::new(),
            },
            Arch::Roberta => MlmConfig {
                model_type: "roberta".into(),
                architectures: Some(vec!["RobertaForMaskedLM".into()]),
                vocab_size,
                hidden_size: hidden,
                num_hidden_layers: layers,
                num_attention_heads: heads,
                intermediate_size: inter,
                hidden_act: Activation::Gelu,
                hidden_dropout_prob: 0.1,
                attention_probs_dropout_prob: 0.1,
                max_position_embeddings: max_pos,
                type_vocab_size: 1,
                layer_norm_eps: 1e-5,
                pad_token_id,
                bos_token_id: None,
                eos_token_id: None,
                initializer_range: 0.02,
                tie_word_embeddings: true,
                extra: Map::new(),
            },
        };
        c.validate()?;
        Ok(c)
    }

    /// Reads and validates a `config.json`.
    pub fn from_file(path: &Path) -> Result<Self, MlmError> {
        let text = std::fs::read_to_string(path).map_err(|e| MlmError::io(path, e))?;
        Self::from_json_str(&text).map_err(|e| match e {
            MlmError::Json { source, .. } => MlmError::Json {
                path: path.to_path_buf(),
                source,
            },
            other => other,
        })
    }

    /// Parses and validates config JSON. `model_type` decides, as in transformers'
    /// `AutoConfig`: it is checked before the other fields, so a GPT-2 config says "unsupported
    /// architecture" rather than "missing field". The `architectures` list is not checked: a
    /// subclass of `BertForMaskedLM` with extra heads has the same masked-LM tensors, and the
    /// weights loader decides from the tensors present (see [`super::weights::load_model_dir`]).
    pub fn from_json_str(text: &str) -> Result<Self, MlmError> {
        let json_err = |source| MlmError::Json {
            path: "config.json".into(),
            source,
        };
        let raw: Value = serde_json::from_str(text).map_err(json_err)?;
        match raw.get("model_type") {
            Some(Value::String(mt)) => {
                arch_of(mt)?;
            }
            Some(_) => {
                return Err(MlmError::InvalidConfig(
                    "model_type must be a string (bert, roberta, xlm-roberta or camembert)".into(),
                ))
            }
            None => {
                return Err(MlmError::InvalidConfig(
                    "config.json has no model_type; anonlm reads BERT and RoBERTa masked LMs \
                     (model_type bert, roberta, xlm-roberta or camembert)"
                        .into(),
                ))
            }
        }
        let config: MlmConfig = serde_json::from_value(raw).map_err(json_err)?;
        config.validate()?;
        Ok(config)
    }

    /// The tensor layout, from `model_type`.
    pub fn arch(&self) -> Result<Arch, MlmError> {
        arch_of(&self.model_type)
    }

    /// Checks the fields the model code relies on.
    pub fn validate(&self) -> Result<(), MlmError> {
        let arch = self.arch()?;
        let bad = |m: String| Err(MlmError::InvalidConfig(m));
        if self.num_attention_heads == 0
            || !self.hidden_size.is_multiple_of(self.num_attention_heads)
        {
            return bad(format!(
                "hidden_size {} is not divisible by num_attention_heads {}",
                self.hidden_size, self.num_attention_heads
            ));
        }
        if self.vocab_size == 0 || self.hidden_size == 0 || self.intermediate_size == 0 {
            return bad("vocab_size, hidden_size and intermediate_size must be positive".into());
        }
        if self.type_vocab_size == 0 {
            return bad("type_vocab_size must be at least 1".into());
        }
        if self.pad_token_id as usize >= self.vocab_size {
            return bad(format!(
                "pad_token_id {} is outside the vocabulary of {}",
                self.pad_token_id, self.vocab_size
            ));
        }
        if arch == Arch::Roberta && self.max_position_embeddings <= self.pad_token_id as usize + 1 {
            return bad(format!(
                "max_position_embeddings {} leaves no positions after pad_token_id {}",
                self.max_position_embeddings, self.pad_token_id
            ));
        }
        if !(0.0..1.0).contains(&self.hidden_dropout_prob)
            || !(0.0..1.0).contains(&self.attention_probs_dropout_prob)
        {
            return bad("dropout probabilities must be in [0, 1)".into());
        }
        Ok(())
    }

    /// Longest input (in tokens, specials included) the position embeddings allow.
    pub fn max_sequence_len(&self) -> usize {
        match self.arch() {
            Ok(Arch::Roberta) => self.max_position_embeddings - self.pad_token_id as usize - 1,
            _ => self.max_position_embeddings,
        }
    }

    /// The config as written next to saved weights: `architectures` set to the masked-LM class
    /// and `torch_dtype` float32, so `AutoModelForMaskedLM` picks the right class. Every other
    /// field read from the user's `config.json` is kept. A custom class (e.g. a subclass with
    /// extra heads) is replaced by the masked-LM class because anonlm writes only the
    /// masked-LM tensors (see [`super::weights::save_model_dir`]): the saved directory is a
    /// plain masked LM, and naming the custom class would promise heads it no longer has.
    pub fn for_saving(&self) -> Result<Self, MlmError> {
        let mut c = self.clone();
        let class = match (self.arch()?, self.model_type.as_str()) {
            (Arch::Bert, _) => "BertForMaskedLM",
            (Arch::Roberta, "xlm-roberta") => "XLMRobertaForMaskedLM",
            (Arch::Roberta, "camembert") => "CamembertForMaskedLM",
            (Arch::Roberta, _) => "RobertaForMaskedLM",
        };
        c.architectures = Some(vec![class.into()]);
        c.extra
            .insert("torch_dtype".into(), Value::String("float32".into()));
        Ok(c)
    }
}

fn arch_of(model_type: &str) -> Result<Arch, MlmError> {
    match model_type {
        "bert" => Ok(Arch::Bert),
        "roberta" | "xlm-roberta" | "camembert" => Ok(Arch::Roberta),
        other => Err(MlmError::UnsupportedArchitecture {
            found: format!("model_type {other:?}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_hf_fields_and_keeps_unknown_ones() {
        let text = r#"{"model_type":"roberta","architectures":["RobertaForMaskedLM"],
            "vocab_size":100,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,
            "intermediate_size":64,"hidden_act":"gelu_new","max_position_embeddings":40,
            "type_vocab_size":1,"layer_norm_eps":1e-5,"pad_token_id":1,"bos_token_id":0,
            "eos_token_id":2,"position_embedding_type":"absolute","transformers_version":"4.1"}"#;
        let c = MlmConfig::from_json_str(text).unwrap();
        assert_eq!(c.arch().unwrap(), Arch::Roberta);
        assert_eq!(c.hidden_act, Activation::GeluNew);
        assert_eq!(c.max_sequence_len(), 38);
        assert_eq!(c.extra["position_embedding_type"], "absolute");
        let back: Value = serde_json::to_value(c.for_saving().unwrap()).unwrap();
        assert_eq!(back["transformers_version"], "4.1");
        assert_eq!(back["torch_dtype"], "float32");
        assert_eq!(back["bos_token_id"], 0);
        assert!(back.get("tie_word_embeddings").is_some());
    }

    #[test]
    fn rejects_gpt2_and_bad_heads() {
        let gpt2 = r#"{"model_type":"gpt2","architectures":["GPT2LMHeadModel"],"n_embd":768}"#;
        let e = MlmConfig::from_json_str(gpt2).unwrap_err().to_string();
        assert!(e.contains("unsupported architecture"), "{e}");
        assert!(e.contains("BERT and RoBERTa"), "{e}");
        let e = MlmConfig::from_json_str(r#"{"architectures":["BertForMaskedLM"]}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no model_type"), "{e}");
        let mut c = MlmConfig::preset("tiny", Arch::Bert, 50, 0).unwrap();
        c.num_attention_heads = 3;
        let e = c.validate().unwrap_err().to_string();
        assert!(e.contains("not divisible"), "{e}");
    }

    #[test]
    fn model_type_decides_not_the_architectures_list() {
        let text = r#"{"model_type":"bert","architectures":["MyBertWithExtraHeads"],
            "vocab_size":100,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,
            "intermediate_size":64,"num_extra_labels":3}"#;
        let c = MlmConfig::from_json_str(text).unwrap();
        assert_eq!(c.arch().unwrap(), Arch::Bert);
        // Saved as a plain masked LM; the user's other fields are kept.
        let back: Value = serde_json::to_value(c.for_saving().unwrap()).unwrap();
        assert_eq!(back["architectures"][0], "BertForMaskedLM");
        assert_eq!(back["num_extra_labels"], 3);
    }

    #[test]
    fn presets() {
        let t = MlmConfig::preset("tiny", Arch::Roberta, 500, 1).unwrap();
        assert_eq!(
            (t.hidden_size, t.num_hidden_layers, t.num_attention_heads),
            (64, 2, 2)
        );
        assert_eq!((t.intermediate_size, t.max_position_embeddings), (256, 130));
        assert_eq!(t.max_sequence_len(), 128);
        let s = MlmConfig::preset("small", Arch::Bert, 500, 0).unwrap();
        assert_eq!(
            (s.hidden_size, s.num_hidden_layers, s.intermediate_size),
            (256, 4, 1024)
        );
        let b = MlmConfig::preset("base", Arch::Bert, 500, 0).unwrap();
        assert_eq!(
            (b.hidden_size, b.num_attention_heads, b.intermediate_size),
            (768, 12, 3072)
        );
        assert!(MlmConfig::preset("huge", Arch::Bert, 5, 0).is_err());
    }
}
