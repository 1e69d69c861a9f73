{{- if eq .MCU.Target "stm32f1" -}}
/* GPIO driver for {{.MCU.Target}} ({{.MCU.Value}}), scaffolded by copperhead:
 * register writes from the STM32F10x reference manual (RM0008: RCC_APB2ENR,
 * GPIOx_CRL/CRH/IDR/BSRR). GPIO numbers are port * 16 + pin (pins.h).
 * The core runs from the 8 MHz HSI it starts on; delay_ms is approximate. */
#include <stdint.h>

#include "board.h"

#define REG(addr) (*(volatile uint32_t *)(addr))
#define RCC_APB2ENR REG(0x40021018u)
#define GPIO_BASE(port) (0x40010800u + 0x400u * (port)) /* GPIOA..GPIOG */
#define GPIO_CR(port, pin) REG(GPIO_BASE(port) + ((pin) < 8 ? 0x00u : 0x04u))
#define GPIO_IDR(port) REG(GPIO_BASE(port) + 0x08u)
#define GPIO_ODR(port) REG(GPIO_BASE(port) + 0x0Cu)
#define GPIO_BSRR(port) REG(GPIO_BASE(port) + 0x10u)

void board_init(void)
{
	RCC_APB2ENR |= 0x7Du; /* AFIO and the clocks of GPIO ports A-E */
}

/* mode sets a pin's 4-bit MODE/CNF field. */
static void mode(unsigned gpio, uint32_t bits)
{
	unsigned port = gpio / 16, pin = gpio % 16, shift = (pin % 8) * 4;
	GPIO_CR(port, pin) = (GPIO_CR(port, pin) & ~(0xFu << shift)) | (bits << shift);
}

void gpio_output(unsigned gpio)
{
	mode(gpio, 0x2u); /* output push-pull, 2 MHz */
}

void gpio_input_pullup(unsigned gpio)
{
	mode(gpio, 0x8u); /* input with pull-up/down; ODR=1 selects pull-up */
	GPIO_ODR(gpio / 16) |= 1u << (gpio % 16);
}

void gpio_write(unsigned gpio, int level)
{
	GPIO_BSRR(gpio / 16) = 1u << (gpio % 16 + (level ? 0 : 16));
}

int gpio_read(unsigned gpio)
{
	return (GPIO_IDR(gpio / 16) >> (gpio % 16)) & 1u;
}

void delay_ms(unsigned ms)
{
	/* about 1 ms per 1000 turns at 8 MHz; use SysTick for exact timing */
	for (volatile uint32_t i = 0; i < ms * 1000u; i++) {
	}
}
{{- else if eq .MCU.Target "rp2040" -}}
/* GPIO driver for {{.MCU.Target}}, scaffolded by copperhead: register writes
 * from the RP2040 datasheet (RESETS, IO_BANK0 FUNCSEL=SIO, PADS_BANK0, SIO).
 * The core runs from the ring oscillator it starts on (about 6 MHz);
 * delay_ms is approximate. */
#include <stdint.h>

#include "board.h"

#define REG(addr) (*(volatile uint32_t *)(addr))
#define RESETS_RESET_CLR REG(0x4000c000u + 0x3000u) /* atomic clear alias */
#define RESETS_RESET_DONE REG(0x4000c008u)
#define IO_BANK0_CTRL(n) REG(0x40014004u + 8u * (n))
#define PADS_BANK0_GPIO(n) REG(0x4001c004u + 4u * (n))
#define SIO_GPIO_IN REG(0xd0000004u)
#define SIO_GPIO_OUT_SET REG(0xd0000014u)
#define SIO_GPIO_OUT_CLR REG(0xd0000018u)
#define SIO_GPIO_OE_SET REG(0xd0000024u)
#define SIO_GPIO_OE_CLR REG(0xd0000028u)

#define RESET_IO_BANK0 (1u << 5)
#define RESET_PADS_BANK0 (1u << 8)

void board_init(void)
{
	RESETS_RESET_CLR = RESET_IO_BANK0 | RESET_PADS_BANK0;
	while ((RESETS_RESET_DONE & (RESET_IO_BANK0 | RESET_PADS_BANK0)) != (RESET_IO_BANK0 | RESET_PADS_BANK0)) {
	}
}

static void sio(unsigned gpio)
{
	IO_BANK0_CTRL(gpio) = 5u; /* FUNCSEL = SIO */
}

void gpio_output(unsigned gpio)
{
	sio(gpio);
	SIO_GPIO_OE_SET = 1u << gpio;
}

void gpio_input_pullup(unsigned gpio)
{
	sio(gpio);
	SIO_GPIO_OE_CLR = 1u << gpio;
	/* input enabled, pull-up on, pull-down off */
	PADS_BANK0_GPIO(gpio) = (PADS_BANK0_GPIO(gpio) & ~(1u << 2)) | (1u << 6) | (1u << 3);
}

void gpio_write(unsigned gpio, int level)
{
	if (level) {
		SIO_GPIO_OUT_SET = 1u << gpio;
	} else {
		SIO_GPIO_OUT_CLR = 1u << gpio;
	}
}

int gpio_read(unsigned gpio)
{
	return (SIO_GPIO_IN >> gpio) & 1u;
}

void delay_ms(unsigned ms)
{
	for (volatile uint32_t i = 0; i < ms * 600u; i++) {
	}
}
{{- else -}}
/* GPIO driver stubs for {{.MCU.Target}}, scaffolded by copperhead. They build
 * and link so the happy path compiles against the toolchain; TODO: replace
 * each body with the part's register writes (or the vendor HAL) before
 * expecting pins to move (copperhead writes real drivers for stm32f1 and
 * rp2040 only). The shadow keeps gpio_read/gpio_write consistent
 * meanwhile. */
#include <stdint.h>

#include "board.h"

static volatile uint32_t shadow[8]; /* one bit per GPIO number, up to 256 */

void board_init(void)
{
	/* TODO: clocks, and enable the GPIO ports' clocks */
}

void gpio_output(unsigned gpio)
{
	(void)gpio; /* TODO: set the pin's mode to output */
}

void gpio_input_pullup(unsigned gpio)
{
	shadow[(gpio / 32) % 8] |= 1u << (gpio % 32); /* TODO: input with pull-up */
}

void gpio_write(unsigned gpio, int level)
{
	if (level) {
		shadow[(gpio / 32) % 8] |= 1u << (gpio % 32);
	} else {
		shadow[(gpio / 32) % 8] &= ~(1u << (gpio % 32));
	}
}

int gpio_read(unsigned gpio)
{
	return (shadow[(gpio / 32) % 8] >> (gpio % 32)) & 1u;
}

void delay_ms(unsigned ms)
{
	/* TODO: calibrate for the core clock, or use SysTick */
	for (volatile uint32_t i = 0; i < ms * 1000u; i++) {
	}
}
{{- end}}
