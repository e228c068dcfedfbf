//! The token classifier: the masked LM's encoder, dropout, and a linear layer from the hidden
//! state to tag scores, named as Hugging Face's `*ForTokenClassification` names it
//! (`classifier.weight`, `classifier.bias`).

use crate::mlm::MaskedLm;
use crate::neural::dropout::DropoutRng;
use candle_core::{Module, Result, Tensor};
use candle_nn::{Init, Linear, VarBuilder};

pub struct TokenClassifier {
    pub encoder: MaskedLm,
    classifier: Linear,
    dropout: f32,
}

impl TokenClassifier {
    /// `vb` is the root of the model's variables (the classifier sits beside the encoder).
    pub fn new(encoder: MaskedLm, vb: VarBuilder, tags: usize, dropout: f32) -> Result<Self> {
        let c = encoder.config();
        let (h, std) = (c.hidden_size, c.initializer_range);
        let vb = vb.pp("classifier");
        let w = vb.get_with_hints(
            (tags, h),
            "weight",
            Init::Randn {
                mean: 0.0,
                stdev: std,
            },
        )?;
        let b = vb.get_with_hints(tags, "bias", Init::Const(0.0))?;
        Ok(TokenClassifier {
            encoder,
            classifier: Linear::new(w, Some(b)),
            dropout,
        })
    }

    /// Tag scores (batch, seq, tags); with `rng`, training mode (dropout on).
    pub fn logits(
        &self,
        input_ids: &Tensor,
        attention_mask: &Tensor,
        mut rng: Option<&mut DropoutRng>,
    ) -> Result<Tensor> {
        let hidden = self
            .encoder
            .forward_hidden(input_ids, attention_mask, rng.as_deref_mut())?;
        let hidden = match rng {
            Some(r) => r.apply(&hidden, self.dropout)?,
            None => hidden,
        };
        self.classifier.forward(&hidden)
    }
}
