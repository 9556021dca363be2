#include "Layers.h"

#include "kernels/CpuKernels.h"
#include "kernels/ParallelFor.h"

#include <cmath>
#include <map>

namespace swarmtrain {

namespace {

bool cpuFloat(const torch::Tensor &x) { return x.device().is_cpu() && x.scalar_type() == torch::kFloat; }

class GeluFunction : public torch::autograd::Function<GeluFunction> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &input)
    {
        const torch::Tensor x = input.contiguous();
        ctx->save_for_backward({x});
        torch::Tensor y = torch::empty_like(x);
        const float *in = x.data_ptr<float>();
        float *out = y.data_ptr<float>();
        kernels::parallelFor(x.numel(), 1 << 14, [&](std::int64_t begin, std::int64_t end) {
            kernels::geluForward(in + begin, out + begin, end - begin);
        });
        return y;
    }

    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext *ctx,
                                                 torch::autograd::tensor_list gradOutputs)
    {
        const torch::Tensor x = ctx->get_saved_variables()[0];
        const torch::Tensor gradY = gradOutputs[0].contiguous();
        torch::Tensor gradX = torch::empty_like(x);
        const float *in = x.data_ptr<float>();
        const float *gy = gradY.data_ptr<float>();
        float *gx = gradX.data_ptr<float>();
        kernels::parallelFor(x.numel(), 1 << 14, [&](std::int64_t begin, std::int64_t end) {
            kernels::geluBackward(in + begin, gy + begin, gx + begin, end - begin);
        });
        return {gradX};
    }
};

// Rows of a [rows, width] tensor are handled in blocks of this many, whatever the thread count,
// so the weight gradient's sum runs in one order and a replay gives the same bits.
constexpr std::int64_t kRowsPerBlock = 32;

class RmsNormFunction : public torch::autograd::Function<RmsNormFunction> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &input,
                                 const torch::Tensor &weightInput, double eps)
    {
        const torch::Tensor x = input.contiguous(), weight = weightInput.contiguous();
        const std::int64_t width = x.size(-1), rows = x.numel() / width;
        torch::Tensor y = torch::empty_like(x);
        torch::Tensor inverse = torch::empty({rows}, x.options()); // 1 / rms of each row
        const float *in = x.data_ptr<float>(), *w = weight.data_ptr<float>();
        float *out = y.data_ptr<float>(), *inv = inverse.data_ptr<float>();
        kernels::parallelFor(rows, 8, [&](std::int64_t begin, std::int64_t end) {
            for (std::int64_t r = begin; r < end; ++r) {
                const float *xr = in + r * width;
                float *yr = out + r * width;
                double squares = 0.0;
                for (std::int64_t i = 0; i < width; ++i)
                    squares += double(xr[i]) * xr[i];
                const float scale = float(1.0 / std::sqrt(squares / double(width) + eps));
                inv[r] = scale;
                for (std::int64_t i = 0; i < width; ++i)
                    yr[i] = xr[i] * scale * w[i];
            }
        });
        ctx->save_for_backward({x, weight, inverse});
        return y;
    }

    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext *ctx,
                                                 torch::autograd::tensor_list gradOutputs)
    {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor &x = saved[0], &weight = saved[1], &inverse = saved[2];
        const torch::Tensor gradY = gradOutputs[0].contiguous();
        const std::int64_t width = x.size(-1), rows = x.numel() / width;
        const std::int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
        torch::Tensor gradX = torch::empty_like(x);
        torch::Tensor partial = torch::zeros({blocks, width}, x.options()); // the weight gradient per block of rows
        const float *in = x.data_ptr<float>(), *w = weight.data_ptr<float>(), *inv = inverse.data_ptr<float>();
        const float *gy = gradY.data_ptr<float>();
        float *gx = gradX.data_ptr<float>(), *gw = partial.data_ptr<float>();
        kernels::parallelFor(blocks, 1, [&](std::int64_t begin, std::int64_t end) {
            for (std::int64_t block = begin; block < end; ++block) {
                float *gwBlock = gw + block * width;
                for (std::int64_t r = block * kRowsPerBlock; r < std::min(rows, (block + 1) * kRowsPerBlock); ++r) {
                    const float *xr = in + r * width, *gr = gy + r * width;
                    const float scale = inv[r];
                    // y = w x s, s = (mean(x^2) + eps)^-1/2: dx = s (g w) - x s^3 mean(g w x).
                    double dot = 0.0;
                    for (std::int64_t i = 0; i < width; ++i)
                        dot += double(gr[i]) * w[i] * xr[i];
                    const float correction = float(dot / double(width)) * scale * scale * scale;
                    float *gxr = gx + r * width;
                    for (std::int64_t i = 0; i < width; ++i) {
                        gxr[i] = gr[i] * w[i] * scale - xr[i] * correction;
                        gwBlock[i] += gr[i] * xr[i] * scale;
                    }
                }
            }
        });
        return {gradX, partial.sum(0), torch::Tensor()};
    }
};

// x [B, T, heads x hs]: each head's halves (a, b) at position t become
// (a cos - b sin, b cos + a sin); `direction` -1 rotates back (the backward pass).
void rotate(const float *x, float *y, const float *cosTable, const float *sinTable, std::int64_t batch, std::int64_t T,
            std::int64_t heads, std::int64_t hs, float direction)
{
    const std::int64_t half = hs / 2, width = heads * hs;
    kernels::parallelFor(batch * T, 16, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t row = begin; row < end; ++row) {
            const std::int64_t t = row % T;
            const float *c = cosTable + t * half, *s = sinTable + t * half;
            for (std::int64_t h = 0; h < heads; ++h) {
                const float *a = x + row * width + h * hs, *b = a + half;
                float *ya = y + row * width + h * hs, *yb = ya + half;
                for (std::int64_t i = 0; i < half; ++i) {
                    const float sin = direction * s[i];
                    ya[i] = a[i] * c[i] - b[i] * sin;
                    yb[i] = b[i] * c[i] + a[i] * sin;
                }
            }
        }
    });
}

class RotaryFunction : public torch::autograd::Function<RotaryFunction> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &input,
                                 const torch::Tensor &cosTable, const torch::Tensor &sinTable, std::int64_t hs)
    {
        const torch::Tensor x = input.contiguous();
        torch::Tensor y = torch::empty_like(x);
        rotate(x.data_ptr<float>(), y.data_ptr<float>(), cosTable.data_ptr<float>(), sinTable.data_ptr<float>(), x.size(0),
               x.size(1), x.size(2) / hs, hs, 1.f);
        ctx->save_for_backward({cosTable, sinTable});
        ctx->saved_data["hs"] = hs;
        return y;
    }

    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext *ctx,
                                                 torch::autograd::tensor_list gradOutputs)
    {
        const auto saved = ctx->get_saved_variables();
        const std::int64_t hs = ctx->saved_data["hs"].toInt();
        const torch::Tensor gradY = gradOutputs[0].contiguous();
        torch::Tensor gradX = torch::empty_like(gradY);
        rotate(gradY.data_ptr<float>(), gradX.data_ptr<float>(), saved[0].data_ptr<float>(), saved[1].data_ptr<float>(),
               gradY.size(0), gradY.size(1), gradY.size(2) / hs, hs, -1.f);
        return {gradX, torch::Tensor(), torch::Tensor(), torch::Tensor()};
    }
};

} // namespace

torch::Tensor fastGelu(const torch::Tensor &x)
{
    if (cpuFloat(x))
        return GeluFunction::apply(x);
    return torch::gelu(x);
}

torch::Tensor linearRows(const torch::Tensor &x, const torch::Tensor &weight, const torch::Tensor &bias)
{
    if (x.numel() != x.size(-1) || !x.device().is_cpu())
        return torch::linear(x, weight, bias);
    std::vector<std::int64_t> shape = x.sizes().vec();
    shape.back() = weight.size(0);
    torch::Tensor y = torch::mv(weight, x.reshape({-1}));
    if (bias.defined())
        y = y + bias;
    return y.view(shape);
}

torch::Tensor rmsNorm(const torch::Tensor &x, const torch::Tensor &weight, double eps)
{
    if (cpuFloat(x) && cpuFloat(weight))
        return RmsNormFunction::apply(x, weight, eps);
    // Hugging Face's order: normalize in float32 (under autocast too), then scale by the weight.
    const torch::Tensor x32 = x.to(torch::kFloat);
    const torch::Tensor normed = x32 * torch::rsqrt(x32.pow(2).mean(-1, /*keepdim=*/true) + eps);
    return normed.to(x.scalar_type()) * weight;
}

std::shared_ptr<const RotaryTable> RotaryTable::get(std::int64_t headSize, double theta, std::int64_t positions)
{
    static std::mutex mutex;
    static std::map<std::tuple<std::int64_t, double, std::int64_t>, std::weak_ptr<const RotaryTable>> tables;
    std::lock_guard<std::mutex> lock(mutex);
    std::weak_ptr<const RotaryTable> &slot = tables[{headSize, theta, positions}];
    std::shared_ptr<const RotaryTable> table = slot.lock();
    if (!table) {
        table = std::shared_ptr<const RotaryTable>(new RotaryTable(headSize, theta, positions));
        slot = table;
    }
    return table;
}

RotaryTable::RotaryTable(std::int64_t headSize, double theta, std::int64_t positions)
    : m_headSize(headSize)
    , m_positions(positions)
{
    torch::NoGradGuard noGrad;
    const auto f64 = torch::TensorOptions().dtype(torch::kDouble);
    const torch::Tensor inverseFrequency =
        1.0 / torch::pow(theta, torch::arange(0, headSize, 2, f64) / double(headSize));
    const torch::Tensor angles = torch::outer(torch::arange(positions, f64), inverseFrequency);
    m_cos = angles.cos().to(torch::kFloat).contiguous();
    m_sin = angles.sin().to(torch::kFloat).contiguous();
}

std::pair<torch::Tensor, torch::Tensor> RotaryTable::cosSin(const torch::Device &device) const
{
    if (device.is_cpu())
        return {m_cos, m_sin};
    std::lock_guard<std::mutex> lock(m_mutex);
    for (const auto &[on, tables] : m_onDevice) {
        if (on == device)
            return tables;
    }
    m_onDevice.emplace_back(device, std::make_pair(m_cos.to(device), m_sin.to(device)));
    return m_onDevice.back().second;
}

torch::Tensor applyRotary(const torch::Tensor &x, const RotaryTable &table, std::int64_t offset)
{
    const std::int64_t B = x.size(0), T = x.size(1), hs = table.headSize(), heads = x.size(2) / hs, half = hs / 2;
    TORCH_CHECK(offset >= 0 && offset + T <= table.positions(), "positions up to ", offset + T,
                " are past the rotary table's ", table.positions());
    auto [cosTable, sinTable] = table.cosSin(x.device());
    cosTable = cosTable.narrow(0, offset, T);
    sinTable = sinTable.narrow(0, offset, T);
    if (cpuFloat(x))
        return RotaryFunction::apply(x, cosTable, sinTable, hs);
    const torch::Tensor heads4 = x.view({B, T, heads, hs});
    const torch::Tensor a = heads4.narrow(-1, 0, half), b = heads4.narrow(-1, half, half);
    const torch::Tensor c = cosTable.view({1, T, 1, half}).to(x.scalar_type());
    const torch::Tensor s = sinTable.view({1, T, 1, half}).to(x.scalar_type());
    return torch::cat({a * c - b * s, b * c + a * s}, -1).view({B, T, heads * hs});
}

} // namespace swarmtrain
